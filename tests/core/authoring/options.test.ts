/**
 * The option table itself: its defaults pass its schemas and match the constants the API server
 * falls back to, the public config type is the table's, and the docs list every option.
 */
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { DEFAULT_API_HOST, DEFAULT_API_PORT, DEFAULT_PUSH_BUFFER_BYTES } from '../../../core/api/server.js';
import * as clientDefaults from '../../../core/api/address.js';
import { DEFAULT_BUFFER, DEFAULT_BUFFER_BYTES } from '../../../core/host/events/event-log.js';
import { checkTokenStrength, MIN_TOKEN_LENGTH } from '../../../core/api/connection-guard.js';
import type { McbridgeConfig } from '../../../core/authoring/config.js';
import { DAEMON_OPTIONS, groupKeys, OPTION_KEYS, type GroupKey, type OptionSpec } from '../../../core/authoring/options.js';
import { optionSchema } from '../../../core/authoring/option-schema.js';
import { checkValue } from '../../../core/authoring/option-value.js';
import { INVALID, VALID } from '../../support/option-values.js';
import type { ToolPolicy } from '../../../core/host/registry/policy.js';
import type { GlobalOptions } from '../../../core/frontends/cli/options.js';

const REPO = path.resolve(import.meta.dirname, '../../..');

describe('the option table', () => {
  it('every default passes its own schema', () => {
    for (const key of OPTION_KEYS) {
      const spec: OptionSpec = DAEMON_OPTIONS[key];
      if (spec.default !== undefined) expect(optionSchema(key).safeParse(spec.default).success, key).toBe(true);
    }
  });

  it("its plain check (the CLI's) and its zod schema (the config's) agree on every value, message included", () => {
    const samples: unknown[] = [
      '',
      ' ',
      'x',
      'short',
      's3cret-token-0123456',
      'server',
      'client',
      'json',
      'info',
      'loud',
      'true',
      0,
      1,
      -1,
      0.04,
      0.05,
      0.5,
      3600,
      3601,
      65535,
      65536,
      4097,
      NaN,
      Infinity,
      true,
      false,
      null,
      undefined,
      {},
      [],
      [''],
      [' a '],
      ['state', 7],
    ];
    for (const key of OPTION_KEYS) {
      for (const value of [...samples, VALID[key], INVALID[key].config]) {
        const plain = checkValue(DAEMON_OPTIONS[key].value, value);
        const zod = optionSchema(key).safeParse(value);
        const label = `${key}: ${String(value)}`;
        expect(plain.ok, label).toBe(zod.success);
        if (plain.ok && zod.success) expect(plain.value, label).toEqual(zod.data);
        if (!plain.ok && !zod.success) expect(plain.message, label).toBe(zod.error.issues[0]!.message);
      }
    }
  });

  it('its defaults are the ones the API server falls back to when embedded without the CLI', () => {
    expect(DAEMON_OPTIONS.apiHost.default).toBe(DEFAULT_API_HOST);
    expect(DAEMON_OPTIONS.apiPort.default).toBe(DEFAULT_API_PORT);
    // ...and the ones a client falls back to, without loading the server.
    expect({ ...clientDefaults }).toEqual({ DEFAULT_API_HOST, DEFAULT_API_PORT });
    expect(DAEMON_OPTIONS.pushBuffer.default * 1024 * 1024).toBe(DEFAULT_PUSH_BUFFER_BYTES);
    expect(DAEMON_OPTIONS.bufferBytes.default * 1024 * 1024).toBe(DEFAULT_BUFFER_BYTES);
    expect(DAEMON_OPTIONS.buffer.default).toBe(DEFAULT_BUFFER);
  });

  it('refuses the tokens the API server refuses', () => {
    const short = 'x'.repeat(MIN_TOKEN_LENGTH - 1);
    expect(optionSchema('apiToken').safeParse(short).success).toBe(false);
    expect(checkValue(DAEMON_OPTIONS.apiToken.value, short).ok).toBe(false);
    expect(() => checkTokenStrength(short)).toThrow();
    expect(optionSchema('apiToken').safeParse(`${short}x`).success).toBe(true);
  });

  it("its policy group is the host's ToolPolicy, key for key", () => {
    expectTypeOf<GroupKey<'policy'>>().toEqualTypeOf<keyof ToolPolicy>();
    expect(groupKeys('policy').sort()).toEqual(['allow', 'deny', 'readOnly']);
  });

  it("McbridgeConfig and the CLI's global options take their field types from it", () => {
    expectTypeOf<McbridgeConfig['vantage']>().toEqualTypeOf<'server' | 'client' | undefined>();
    expectTypeOf<McbridgeConfig['buffer']>().toEqualTypeOf<number | undefined>();
    expectTypeOf<McbridgeConfig['sim']>().toEqualTypeOf<boolean | undefined>();
    expectTypeOf<McbridgeConfig['serverDir']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<McbridgeConfig['allow']>().toEqualTypeOf<string[] | undefined>();
    expectTypeOf<McbridgeConfig['logLevel']>().toEqualTypeOf<'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent' | undefined>();
    // A default makes the resolved value certain; no default leaves it optional.
    expectTypeOf<GlobalOptions['apiPort']>().toEqualTypeOf<number>();
    expectTypeOf<GlobalOptions['apiToken']>().toEqualTypeOf<string | undefined>();
  });
});

/** What an editor shows on hover over `field` in `defineConfig({ field: ... })`: the type and the JSDoc. */
function hover(fields: string[]): Map<string, { type: string; doc: string }> {
  const file = path.join(REPO, 'tests/core/authoring/__hover__.ts');
  const text = `import { defineConfig } from '../../../core/authoring/config.js';\ndefineConfig({ ${fields.map((f) => `${f}: undefined`).join(', ')} });\n`;
  const service = ts.createLanguageService({
    getScriptFileNames: () => [file],
    getScriptVersion: () => '1',
    getScriptSnapshot: (f) => (f === file ? ts.ScriptSnapshot.fromString(text) : fs.existsSync(f) ? ts.ScriptSnapshot.fromString(fs.readFileSync(f, 'utf8')) : undefined),
    getCurrentDirectory: () => REPO,
    // The repository's lib and types (tsconfig.json): without them the DOM lib and every @types package load too.
    getCompilationSettings: () => ({
      strict: true,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      target: ts.ScriptTarget.ES2022,
      lib: ['lib.es2023.d.ts'],
      types: ['node'],
      skipLibCheck: true,
    }),
    getDefaultLibFileName: (o) => ts.getDefaultLibFilePath(o),
    fileExists: (f) => f === file || ts.sys.fileExists(f),
    readFile: (f) => (f === file ? text : ts.sys.readFile(f)),
    readDirectory: ts.sys.readDirectory,
    directoryExists: ts.sys.directoryExists,
    getDirectories: ts.sys.getDirectories,
  });
  return new Map(
    fields.map((f) => {
      const info = service.getQuickInfoAtPosition(file, text.indexOf(`${f}:`));
      return [f, { type: ts.displayPartsToString(info?.displayParts), doc: ts.displayPartsToString(info?.documentation) }];
    }),
  );
}

describe('in an editor', () => {
  it("a McbridgeConfig field shows its type and its table entry's JSDoc", () => {
    const shown = hover(['buffer', 'serverDir', 'watch']);
    expect(shown.get('buffer')).toEqual({ type: '(property) buffer?: number | undefined', doc: 'Events kept for replay (default 1000).' });
    expect(shown.get('serverDir')!.doc).toBe('Game directory holding mc-agent-server/ (relative to this file).');
    expect(shown.get('watch')!.type).toBe('(property) watch?: boolean | undefined');
    expect(shown.get('watch')!.doc).toMatch(/^Reload plugins/);
  }, 60_000);
});

describe('the docs list every option', () => {
  it("docs/plugins.md's config table has a row for each key", () => {
    const doc = fs.readFileSync(path.join(REPO, 'docs/plugins.md'), 'utf8');
    const table = doc.slice(doc.indexOf('| key |')).split('\n\n')[0]!;
    const keys = new Set(
      table
        .split('\n')
        .slice(2)
        .flatMap((row) => [...row.split('|')[1]!.matchAll(/`(\w+)`/g)].map((m) => m[1])),
    );
    for (const key of OPTION_KEYS) expect(keys, `docs/plugins.md config table lacks \`${key}\``).toContain(key);
  });

  it("docs/cli.md names each flag and each environment variable, the predecessor's too", () => {
    const page = fs.readFileSync(path.join(REPO, 'docs/cli.md'), 'utf8');
    for (const key of OPTION_KEYS) {
      const spec: OptionSpec = DAEMON_OPTIONS[key];
      const flag = spec.flag.split(' ')[0]!;
      expect(page, `docs/cli.md lacks ${flag}`).toMatch(new RegExp(`${flag}(?![\\w-])`));
      for (const env of [spec.env, spec.legacyEnv, spec.clientEnv]) if (env) expect(page, `docs/cli.md lacks ${env}`).toContain(env);
    }
  });
});
