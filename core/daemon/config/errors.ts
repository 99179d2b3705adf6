import path from 'node:path';
import type { z } from 'zod';
import { McbridgeError } from '../../host/errors.js';
import { formatIssuePath } from '../../host/define.js';

export interface ConfigProblem {
  /** Where inside the config, e.g. `plugins[1]` or `composites[0].name`; empty for the file as a whole. */
  path: string;
  message: string;
  /** What kind of problem, where a caller may act on it (a scenario's `unknown_tool`, `bad_schema`, ...). */
  reason?: string;
}

/** A config file as a person reads it: relative to the working directory when inside it. */
export function displayPath(file: string | null): string {
  if (file === null) return 'the inline config';
  const rel = path.relative(process.cwd(), file);
  return rel && !rel.startsWith('..') && !path.isAbsolute(rel) ? rel : file;
}

/** A config that cannot be used: names the file, the place inside it and what is expected. */
export class ConfigError extends McbridgeError {
  readonly file: string | null;
  readonly problems: ConfigProblem[];

  constructor(file: string | null, problems: ConfigProblem[], details: Record<string, unknown> = {}) {
    const where = displayPath(file);
    const lines = problems.map((p) => (p.path ? `${where}: ${p.path}: ${p.message}` : `${where}: ${p.message}`));
    super('invalid_params', lines.join('\n'), { ...details, file, problems });
    this.file = file;
    this.problems = problems;
  }
}

/** Zod issues as problems, each path prefixed by where the validated value sits in the config. */
export function zodProblems(error: z.ZodError, prefix: readonly PropertyKey[] = []): ConfigProblem[] {
  return error.issues.map((issue) => ({ path: formatIssuePath([...prefix, ...issue.path]), message: issue.message }));
}
