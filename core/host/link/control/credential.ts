/**
 * The control credential (`mca1.<id>.<secret>`): read from a file or an environment variable at
 * each connect, so a rotated token needs no restart. Only its source and its id are ever shown.
 */
import fs from 'node:fs';
import { McbridgeError } from '../../errors.js';

export interface CredentialSettings {
  tokenFile?: string;
  tokenEnv?: string;
  /** Given in code (an embedded sim's credential): shown as `given`. */
  token?: string;
}

export interface Credential {
  token: string;
  /** The credential's id (`tk_…`): the server's name for it, not a secret. */
  id: string;
  /** The secret part: what a server's text must never carry into a log or an answer. */
  secret: string;
  source: string;
}

const TOKEN = /^mca1\.([A-Za-z0-9_-]{1,64})\.([A-Za-z0-9_-]{8,256})$/;
const MAX_TOKEN_FILE = 4096;

export function credentialSource(settings: CredentialSettings): string | null {
  if (settings.token !== undefined) return 'given';
  if (settings.tokenFile !== undefined) return `file ${settings.tokenFile}`;
  if (settings.tokenEnv !== undefined) return `env ${settings.tokenEnv}`;
  return null;
}

export function readCredential(settings: CredentialSettings, env: NodeJS.ProcessEnv = process.env): Credential {
  const source = credentialSource(settings);
  if (source === null)
    throw new McbridgeError('unauthorized', 'a control target needs a credential: set tokenFile or tokenEnv (mint one on the server console: /mcagent control token add <label> read+write)');
  let raw: string | undefined = settings.token;
  if (settings.tokenFile !== undefined) {
    try {
      const fd = fs.openSync(settings.tokenFile, 'r');
      try {
        const buf = Buffer.alloc(MAX_TOKEN_FILE);
        raw = buf.subarray(0, fs.readSync(fd, buf, 0, MAX_TOKEN_FILE, 0)).toString('utf8');
      } finally {
        fs.closeSync(fd);
      }
    } catch (err) {
      throw new McbridgeError('unauthorized', `cannot read the token file ${settings.tokenFile}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
  } else if (settings.tokenEnv !== undefined) {
    raw = env[settings.tokenEnv];
    if (raw === undefined || raw.trim() === '') throw new McbridgeError('unauthorized', `the environment variable ${settings.tokenEnv} is not set: put the control token in it`);
  }
  const token = (raw ?? '').trim();
  const match = TOKEN.exec(token);
  // Never echo what was read: it may be a secret with a typo.
  if (!match) throw new McbridgeError('unauthorized', `the control token from ${source} is not of the form mca1.<id>.<secret> (as /mcagent control token add prints it)`);
  return { token, id: match[1]!, secret: match[2]!, source };
}
