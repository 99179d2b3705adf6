/**
 * Setup of every test file (vitest.config.ts): the daemons it starts, in-process or spawned,
 * keep their write ledgers in a folder of its own, not in the repository's `.mcbridge/`, so a
 * request id one test file (or an earlier run) used is never known to another.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll } from 'vitest';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcbridge-state-'));
process.env.MCBRIDGE_STATE_DIR = dir;
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
