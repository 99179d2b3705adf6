/**
 * The public plugin API's types, pinned. `npm run typecheck` (tsc over tests/) is what checks
 * them: an `expectTypeOf` that no longer holds, or a `@ts-expect-error` line that stopped being an
 * error, fails it. Vitest runs the file too; nothing here calls a handler.
 */
import { describe, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import {
  defineComposite,
  definePlugin,
  defineTool,
  type CompositeContext,
  type Cursor,
  type DeferredCleanup,
  type EventPage,
  type EventStats,
  type FollowItem,
  type HostStatus,
  type Manifest,
  type ModReply,
  type PluginGuide,
  type RecordedEvent,
  type Service,
  type ServiceStop,
  type ToolContext,
} from 'mcbridge';

const base = { description: 'a tool', input: z.object({}) };

describe('defineTool', () => {
  it('infers args from the input schema, after defaults', () => {
    defineTool({
      name: 'scan',
      description: 'scans',
      input: z.object({ radius: z.number().default(8), tag: z.string().optional() }),
      run: async (args) => {
        expectTypeOf(args).toEqualTypeOf<{ radius: number; tag?: string | undefined }>();
        // @ts-expect-error: not in the input schema
        void args.center;
        return null;
      },
    });
  });

  it('checks what run returns against the output schema', () => {
    const output = z.object({ n: z.number() });
    const ok = defineTool({ ...base, name: 'ok', output, run: async () => ({ n: 1 }) });
    expectTypeOf(ok.run).returns.toEqualTypeOf<Promise<{ n: number }>>();
    defineTool({
      ...base,
      name: 'liar',
      output,
      // @ts-expect-error: a string where the output schema says number
      run: async () => ({ n: 'one' }),
    });
    // Without an output schema anything goes.
    defineTool({ ...base, name: 'free', run: async () => 'whatever' });
  });

  it('gives ctx.call an unknown result and the cursor-keeping waits a RecordedEvent', () => {
    defineTool({
      ...base,
      name: 'ctx_types',
      run: async (_args, ctx) => {
        expectTypeOf(ctx.call('state')).toEqualTypeOf<Promise<unknown>>();
        expectTypeOf(ctx.request('STATE')).toEqualTypeOf<Promise<ModReply>>();
        expectTypeOf(ctx.waitFor(() => true, { timeoutMs: 5_000 })).toEqualTypeOf<Promise<RecordedEvent>>();
        expectTypeOf(ctx.sleep(10)).toEqualTypeOf<Promise<void>>();
        expectTypeOf(ctx.startCursor).toEqualTypeOf<Cursor>();
        expectTypeOf(ctx.config).toBeUnknown();
        ctx.defer((cleanup) => expectTypeOf(cleanup).toEqualTypeOf<ToolContext>());
        expectTypeOf(ctx.host.status()).toEqualTypeOf<HostStatus>();
        expectTypeOf(ctx.host.status().connected).toBeBoolean();
        expectTypeOf(ctx.events.stats()).toEqualTypeOf<EventStats>();
        expectTypeOf(ctx.events.stats().buffered).toBeNumber();
        return null;
      },
    });
  });
});

describe("the primitives of issue 23: defer handles, configDir, a service's own stop, events.scan", () => {
  it('types each of them', () => {
    defineTool({
      ...base,
      name: 'primitives',
      run: async (_args, ctx) => {
        const undo = ctx.defer(() => undefined);
        expectTypeOf(undo).toEqualTypeOf<DeferredCleanup>();
        expectTypeOf(undo.now()).toEqualTypeOf<Promise<void>>();
        expectTypeOf(undo.cancel()).toBeVoid();
        expectTypeOf(ctx.configDir).toBeString();
        // @ts-expect-error: read-only
        ctx.configDir = '/elsewhere';
        expectTypeOf(ctx.events.scan(ctx.startCursor, (e) => expectTypeOf(e).toEqualTypeOf<RecordedEvent>())).toEqualTypeOf<EventPage>();
        ctx.events.scan(ctx.startCursor, () => false);
        // @ts-expect-error: a cursor, not a number
        ctx.events.scan(5, () => undefined);
        return null;
      },
    });
    const returnsStop: Service = {
      name: 'own_stop',
      start: (ctx) => {
        expectTypeOf(ctx.configDir).toBeString();
        return () => undefined;
      },
    };
    const asyncStop: Service = { name: 'async_stop', start: async () => async () => undefined };
    const noStop: Service = { name: 'no_stop', start: () => undefined };
    void [returnsStop, asyncStop, noStop];
    expectTypeOf<ServiceStop>().toEqualTypeOf<() => void | Promise<void>>();
    // @ts-expect-error: a stop is a function
    const notAStop: Service = { name: 'bad', start: () => 'stop' };
    void notAStop;
  });
});

describe('events.follow', () => {
  it('yields the discriminated union of events and gaps', () => {
    expectTypeOf<FollowItem>().toEqualTypeOf<{ kind: 'event'; event: RecordedEvent } | { kind: 'gap'; reason: 'evicted' | 'stream-reset'; dropped: number; from: number; to: number }>();
    defineTool({
      ...base,
      name: 'follower',
      run: async (_args, ctx) => {
        for await (const item of ctx.events.follow({ since: ctx.startCursor, categories: ['chat'] })) {
          expectTypeOf(item).toEqualTypeOf<FollowItem>();
          // @ts-expect-error: only an event item has an event
          void item.event;
          if (item.kind === 'event') expectTypeOf(item.event).toEqualTypeOf<RecordedEvent>();
          else expectTypeOf(item.dropped).toBeNumber();
        }
        // @ts-expect-error: not an event category
        ctx.events.follow({ categories: ['chatter'] });
        return null;
      },
    });
  });
});

describe("ctx.config from the plugin's options", () => {
  const options = z.object({ every: z.number().default(5), label: z.string().optional() }).strict();
  type Options = { every: number; label?: string | undefined };
  const tool = defineTool.withOptions(options);

  it('types the tools made with defineTool.withOptions, and setup and services through definePlugin', () => {
    const plugin = definePlugin({
      name: 'typed',
      version: '1.0.0',
      apiVersion: 1,
      options,
      tools: [
        tool({
          ...base,
          name: 'typed_tool',
          output: z.number(),
          run: async (_args, ctx) => {
            expectTypeOf(ctx.config).toEqualTypeOf<Options>();
            ctx.defer((cleanup) => expectTypeOf(cleanup.config).toEqualTypeOf<Options>());
            // @ts-expect-error: no such option
            void ctx.config.nope;
            return ctx.config.every;
          },
        }),
      ],
      services: [{ name: 'svc', start: (ctx) => void expectTypeOf(ctx.config).toEqualTypeOf<Options>() }],
      setup: (ctx) => void expectTypeOf(ctx.config).toEqualTypeOf<Options>(),
    });
    expectTypeOf(plugin.options).toEqualTypeOf<z.ZodType<Options> | undefined>();
  });

  it('refuses a tool made for other options', () => {
    const other = defineTool.withOptions(z.object({ verbose: z.boolean() }));
    definePlugin({
      name: 'mixed',
      version: '1.0.0',
      apiVersion: 1,
      options,
      // @ts-expect-error: this tool expects { verbose }, the plugin parses { every, label }
      tools: [other({ ...base, name: 'other_tool', run: async (_args, ctx) => ctx.config.verbose })],
    });
  });
});

describe('defineComposite', () => {
  it('types ctx.args from its input, and its clean-ups get the same composite context', () => {
    defineComposite({
      name: 'typed_composite',
      description: 'a composite',
      input: z.object({ until: z.string(), timeoutSeconds: z.number().default(60) }),
      output: z.object({ text: z.string() }),
      run: async (ctx) => {
        expectTypeOf(ctx.args).toEqualTypeOf<{ until: string; timeoutSeconds: number }>();
        expectTypeOf(ctx).toMatchTypeOf<ToolContext>();
        ctx.defer((cleanup) => expectTypeOf(cleanup).toEqualTypeOf<CompositeContext<{ until: string; timeoutSeconds: number }>>());
        expectTypeOf(ctx.commandOutput('say hi')).toEqualTypeOf<Promise<string[]>>();
        // @ts-expect-error: not in the input schema
        void ctx.args.since;
        return { text: ctx.args.until };
      },
    });
    defineComposite({
      name: 'wrong_result',
      description: 'returns the wrong thing',
      output: z.object({ text: z.string() }),
      // @ts-expect-error: a number where the output schema says string
      run: async () => ({ text: 1 }),
    });
  });
});

describe("a plugin's guide", () => {
  it('is text on the plugin, carried to the front-ends as manifest.guides', () => {
    definePlugin({ name: 'sky', version: '1.0.0', apiVersion: 1, guide: 'Call `sky_probe` first.' });
    // @ts-expect-error: a guide is text, not a list
    definePlugin({ name: 'sky', version: '1.0.0', apiVersion: 1, guide: ['Call `sky_probe` first.'] });
    expectTypeOf<Manifest['guides']>().toEqualTypeOf<PluginGuide[] | undefined>();
    expectTypeOf<PluginGuide>().toEqualTypeOf<{ plugin: string; text: string }>();
  });
});
