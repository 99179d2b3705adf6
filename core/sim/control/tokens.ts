/**
 * Control credentials (`mca1.<id>.<secret>`), stored as salted SHA-256 in
 * `control/tokens.json` as the mod stores them; the secret exists only in what `add` returns.
 * Expiry is judged on the sim's clock, so a test can move past it with `advanceClock`.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

export type Permission = 'read' | 'write';
export type Grant = 'read' | 'write' | 'read+write';

export interface StoredToken {
  id: string;
  label: string;
  permissions: Permission[];
  salt: string;
  hash: string;
  createdAtMillis: number;
  expiresAtMillis?: number;
}

export const GRANTS: Record<Grant, Permission[]> = { read: ['read'], write: ['write'], 'read+write': ['read', 'write'] };

const TOKEN_SHAPE = /^mca1\.(tk_[0-9a-f]{12})\.([A-Za-z0-9_-]{43})$/;

function hashOf(salt: string, secret: string): string {
  return crypto.createHash('sha256').update(`${salt}:${secret}`).digest('hex');
}

export class TokenStore {
  private tokens: StoredToken[];

  constructor(
    private readonly file: string,
    private readonly now: () => number,
  ) {
    this.tokens = readTokens(file);
  }

  static fileIn(dir: string): string {
    return path.join(dir, 'tokens.json');
  }

  list(): readonly StoredToken[] {
    return this.tokens;
  }

  usable(token: StoredToken): boolean {
    return token.expiresAtMillis === undefined || token.expiresAtMillis > this.now();
  }

  hasUsable(): boolean {
    return this.tokens.some((t) => this.usable(t));
  }

  /** A new credential; the returned `token` is the only copy of its secret. */
  add(label: string, grant: Grant, ttlSeconds?: number): { id: string; token: string } {
    const id = `tk_${crypto.randomBytes(6).toString('hex')}`;
    const secret = crypto.randomBytes(32).toString('base64url');
    const salt = crypto.randomBytes(16).toString('hex');
    const createdAtMillis = this.now();
    const stored: StoredToken = { id, label, permissions: [...GRANTS[grant]], salt, hash: hashOf(salt, secret), createdAtMillis };
    if (ttlSeconds !== undefined) stored.expiresAtMillis = createdAtMillis + ttlSeconds * 1000;
    this.tokens.push(stored);
    this.save();
    return { id, token: `mca1.${id}.${secret}` };
  }

  revoke(id: string): boolean {
    const before = this.tokens.length;
    this.tokens = this.tokens.filter((t) => t.id !== id);
    if (this.tokens.length === before) return false;
    this.save();
    return true;
  }

  /** The credential a presented token proves, or null (malformed, unknown, revoked, expired: all alike). */
  verify(presented: unknown): StoredToken | null {
    if (typeof presented !== 'string') return null;
    const match = TOKEN_SHAPE.exec(presented);
    if (!match) return null;
    const stored = this.tokens.find((t) => t.id === match[1]);
    if (!stored || !this.usable(stored)) return null;
    const expected = Buffer.from(stored.hash, 'hex');
    const actual = Buffer.from(hashOf(stored.salt, match[2]), 'hex');
    return expected.length === actual.length && crypto.timingSafeEqual(expected, actual) ? stored : null;
  }

  private save(): void {
    const tmp = `${this.file}.tmp`;
    fs.writeFileSync(tmp, `${JSON.stringify(this.tokens, null, 2)}\n`, { mode: 0o600 });
    fs.renameSync(tmp, this.file);
  }
}

/** A missing or unreadable file holds no credentials (a bootstrap one is then issued). */
function readTokens(file: string): StoredToken[] {
  try {
    const parsed: unknown = JSON.parse(fs.readFileSync(file, 'utf8'));
    if (!Array.isArray(parsed)) return [];
    return parsed.filter(
      (t): t is StoredToken => typeof t === 'object' && t !== null && typeof t.id === 'string' && typeof t.salt === 'string' && typeof t.hash === 'string' && Array.isArray(t.permissions),
    );
  } catch {
    return [];
  }
}
