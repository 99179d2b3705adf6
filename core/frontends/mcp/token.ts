/**
 * The HTTP front-end's bearer token: given, or `auto` (generated once, printed once to
 * stderr, kept in a file only the user can read and reused on the next start).
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { McbridgeError } from '../../host/errors.js';

export function defaultTokenFile(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CONFIG_HOME || path.join(os.homedir(), '.config');
  return path.join(base, 'mcbridge', 'mcp-token');
}

export interface ResolvedToken {
  token: string;
  /** `auto` created a new token (the caller prints it once). */
  generated: boolean;
  file?: string;
}

/** `auto` reads the token file, or creates it (0600, in a 0700 directory) with a fresh token. */
export function resolveToken(value: string | undefined, file = defaultTokenFile()): ResolvedToken | null {
  if (value === undefined || value === '') return null;
  if (value !== 'auto') {
    if (value.trim().length < 16) {
      throw new McbridgeError('invalid_params', 'the MCP bearer token must be at least 16 characters; use --token auto to generate a strong one');
    }
    return { token: value.trim(), generated: false };
  }
  try {
    const stored = fs.readFileSync(file, 'utf8').trim();
    const mode = fs.statSync(file).mode & 0o077;
    if (mode !== 0 && process.platform !== 'win32') {
      throw new McbridgeError(
        'invalid_params',
        `the token file ${file} is readable by other users (mode ${(fs.statSync(file).mode & 0o777).toString(8)}); run chmod 600 on it, or delete it to generate a new token`,
      );
    }
    if (stored.length >= 16) return { token: stored, generated: false, file };
  } catch (err) {
    if (err instanceof McbridgeError) throw err;
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const token = randomBytes(32).toString('base64url');
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  fs.writeFileSync(file, token + '\n', { mode: 0o600 });
  fs.chmodSync(file, 0o600);
  return { token, generated: true, file };
}
