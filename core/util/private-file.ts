import fs from 'node:fs';

/**
 * What to tell the user when a file holding a secret lets its group or others read it (`--token
 * auto` writes its own 0600, core/frontends/mcp/token.ts); null when only the owner may, when it
 * cannot be read (its reader says so), and on Windows, which has no such bits.
 */
export function exposedSecretFile(file: string, what: string): string | null {
  if (process.platform === 'win32') return null;
  let mode: number;
  try {
    mode = fs.statSync(file).mode;
  } catch {
    return null;
  }
  if ((mode & 0o077) === 0) return null;
  return `${what} ${file} is readable by other users (mode ${(mode & 0o777).toString(8)}): run chmod 600 ${JSON.stringify(file)}, so only you can read it`;
}
