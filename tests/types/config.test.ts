/** The config types are the config schema's own (core/authoring/config-schema.ts), no second spelling. */
import { expectTypeOf, it } from 'vitest';
import type { z } from 'zod';
import type { McbridgeConfig, TargetOptions } from 'mcbridge';
import { defineConfig } from 'mcbridge';
import type { configObject, targetObject } from '../../core/authoring/config-schema.js';

it('McbridgeConfig and TargetOptions are z.input of the schema the daemon validates with', () => {
  expectTypeOf<McbridgeConfig>().toEqualTypeOf<z.input<typeof configObject>>();
  expectTypeOf<TargetOptions>().toEqualTypeOf<z.input<typeof targetObject>>();
  expectTypeOf<NonNullable<McbridgeConfig['targets']>[string]>().toEqualTypeOf<TargetOptions>();
});

it('a target takes every link option of the control transport, and a control sim', () => {
  expectTypeOf<TargetOptions['transport']>().toEqualTypeOf<'legacy' | 'control' | undefined>();
  expectTypeOf<TargetOptions['address']>().toEqualTypeOf<string | undefined>();
  expectTypeOf<TargetOptions['pin']>().toEqualTypeOf<string | undefined>();
  expectTypeOf<TargetOptions['tokenFile']>().toEqualTypeOf<string | undefined>();
  expectTypeOf<TargetOptions['sim']>().toEqualTypeOf<boolean | { seed?: number | undefined; control?: boolean | undefined } | undefined>();
  expectTypeOf(defineConfig).toBeCallableWith({ targets: { far: { transport: 'control', address: 'h:1', pin: 'sha256:00', tokenFile: 'far.token' }, near: { sim: { control: true } } } });
  // @ts-expect-error a key the schema refuses is refused by the types too
  defineConfig({ targets: { far: { tokenfile: 'far.token' } } });
});
