/**
 * The client-vantage verbs (docs/protocol.md#client-vantage-verbs): chat as the local player, the screen, joining
 * servers and worlds, LAN, and per-tick recording. Each tool needs its own CAPS token, so a
 * server-vantage mod hides all of them with the reason.
 */
import { z } from 'zod';
import { definePlugin, defineTool } from 'mcbridge';
import { javaDouble, lineText, modAck, modReply, requestIdParam } from 'mcbridge/kit';

/** Vanilla refuses chat messages longer than this. */
const MAX_CHAT_LENGTH = 256;
const DEFAULT_RECORD = { ticks: 200, radius: 64, interval: 1 } as const;
const MAX_RECORD_TICKS = 72_000;

const port = (field: string, min: number) =>
  z
    .number({ error: `${field} must be a port number, e.g. 25565` })
    .int(`${field} must be a whole number`)
    .min(min, `${field} must be at least ${min}`)
    .max(65_535, `${field} must be at most 65535`);

/** `host`, `host:port`, `[v6]:port`: no spaces, a sane port when one is given. */
const address = lineText('address', '"127.0.0.1:25565" or "mc.example.org"', 255)
  .refine((a) => !/\s/.test(a), 'address must not contain spaces, e.g. "127.0.0.1:25565"')
  .refine((a) => {
    const m = /^(?:\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(a);
    if (!m) return false;
    return m[1] === undefined || (Number(m[1]) >= 1 && Number(m[1]) <= 65_535);
  }, 'address must be host or host:port with a port from 1 to 65535, e.g. "127.0.0.1:25565"');

const screenReply = modReply({
  screen: z.string().optional().describe('the screen\'s class name, or "null" while playing with no screen open'),
  title: z.string().optional(),
  narration: z.string().optional(),
  inWorld: z.boolean().optional(),
});

export const clientPlugin = definePlugin({
  name: 'client',
  version: '1.0.0',
  apiVersion: 1,
  verbs: {
    CHAT: (text) => ({ replies: ['chat_ack'], requires: ['chat'], write: true, control: { op: 'chat', params: { text } } }),
    SCREEN: { replies: ['screen'], requires: ['screen'] },
    CONNECT: { replies: ['connect_ack'], requires: ['connect'] },
    WORLD: { replies: ['world_ack'], requires: ['world'] },
    LAN: { replies: ['lan_ack'], requires: ['lan'] },
    SAMPLE_START: { replies: ['sample_start_ack'], requires: ['record'] },
    SAMPLE_STOP: { replies: ['sample_stop_ack'], requires: ['record'] },
  },
  tools: [
    defineTool({
      name: 'chat',
      description:
        "Send a chat message as the client-vantage player; every player on the server sees it. Returns the mod's " +
        '`chat_ack`; the message itself comes back as a `chat` event. Not for commands: use `command_output` (or ' +
        '`command`) for anything starting with a slash. Fails with "no server connection" when no world is open.',
      input: z
        .object({
          message: lineText('message', '"hello"', MAX_CHAT_LENGTH, { fold: true }).refine((m) => !m.startsWith('/'), 'message must not start with "/": send commands with command_output or command'),
          request_id: requestIdParam,
        })
        .strict(),
      output: modAck,
      requires: ['chat'],
      annotations: { readOnly: false, destructive: false, idempotent: false, openWorld: true },
      passthrough: true,
      paramAliases: { requestId: 'request_id' },
      run: async ({ message, request_id }, ctx) => ctx.request(`CHAT ${message}`, { requestId: request_id }),
    }),
    defineTool({
      name: 'screen',
      description:
        'Which GUI screen the client shows now (class name, title, narration; "null" while playing with no screen open) ' +
        'and whether a world is open. Cheap and read-only; use it to see whether the client sits on the title screen, a ' +
        'menu or in game before connect, world or lan.',
      input: z.object({}).strict(),
      output: screenReply,
      requires: ['screen'],
      annotations: { readOnly: true, idempotent: true },
      passthrough: true,
      run: async (_args, ctx) => ctx.request('SCREEN'),
    }),
    defineTool({
      name: 'connect',
      description:
        'Make the client join a multiplayer server at `address` (host or host:port). The ack means the connection has ' +
        'started, not that the join finished: follow with `wait_for` (e.g. a STATE path such as inWorld) or `screen`. ' +
        'Leaves whatever world the client is in.',
      input: z.object({ address }).strict(),
      output: modAck,
      requires: ['connect'],
      annotations: { readOnly: false, destructive: false, idempotent: false, openWorld: true },
      passthrough: true,
      run: async ({ address: target }, ctx) => ctx.request(`CONNECT ${target}`),
    }),
    defineTool({
      name: 'world',
      description:
        "Open a single-player save by its folder name in the client's saves directory (not the display name). Fails " +
        'with "already in a world" when one is open. A failure while loading arrives later as a `world_failed` event; ' +
        'check with `screen`, `state` or `wait_for`.',
      input: z
        .object({
          level: lineText('level', '"New World"', 255).refine((l) => !/[\\/]/.test(l) && l !== '.' && l !== '..', 'level must be a folder name inside saves/, without slashes'),
        })
        .strict(),
      output: modAck,
      requires: ['world'],
      annotations: { readOnly: false, destructive: false, idempotent: false },
      passthrough: true,
      run: async ({ level }, ctx) => ctx.request(`WORLD ${level}`),
    }),
    defineTool({
      name: 'lan',
      description:
        'Publish the open single-player world to the LAN, or, once published, report its port and address (calling ' +
        'again is a status poll). `port` (default: the game picks) and `mode`: "online" checks accounts; "offline" lets ' +
        'anyone on the network join under any name, so use it only on a trusted network. Fails when no single-player ' +
        'world is open.',
      input: z
        .object({
          port: port('port', 0).optional().describe('0 or omitted: the game picks the port'),
          mode: z.enum(['online', 'offline'], { error: 'mode must be "online" or "offline"' }).optional(),
        })
        .strict(),
      output: modAck,
      requires: ['lan'],
      annotations: { readOnly: false, destructive: false, idempotent: true, openWorld: true },
      run: async ({ port: p, mode }, ctx) => {
        if (p === undefined && mode === undefined) return ctx.request('LAN');
        return ctx.request(mode === undefined ? `LAN ${p}` : `LAN ${p ?? 0} ${mode}`);
      },
    }),
    defineTool({
      name: 'record_start',
      description:
        'Start per-tick sampling of the entities the client sees within `radius` blocks, every `interval` ticks, for ' +
        "`ticks` ticks (defaults 200, 64, 1). Samples go to samples.jsonl on the client's disk, not to the event stream; " +
        'progress arrives as `sample_progress` events every 20 samples and the end as `sample_done` (wait for it with ' +
        '`wait_for {match: {type: "sample_done"}}`). Starting again replaces a running recording.',
      input: z
        .object({
          ticks: z
            .number({ error: 'ticks must be a whole number of ticks, e.g. 200' })
            .int('ticks must be a whole number')
            .min(1, 'ticks must be at least 1')
            .max(MAX_RECORD_TICKS, `ticks must be at most ${MAX_RECORD_TICKS} (one hour)`)
            .optional(),
          radius: z.number({ error: 'radius must be a number of blocks, e.g. 64' }).finite().positive('radius must be more than 0 blocks').max(1024, 'radius must be at most 1024 blocks').optional(),
          interval: z
            .number({ error: 'interval must be a whole number of ticks, e.g. 1' })
            .int('interval must be a whole number')
            .min(1, 'interval must be at least 1 tick')
            .max(MAX_RECORD_TICKS, `interval must be at most ${MAX_RECORD_TICKS}`)
            .optional(),
        })
        .strict(),
      output: modAck,
      requires: ['record'],
      annotations: { readOnly: false, destructive: false, idempotent: false },
      run: async ({ ticks, radius, interval }, ctx) => {
        const t = ticks ?? DEFAULT_RECORD.ticks;
        const r = radius ?? DEFAULT_RECORD.radius;
        const i = interval ?? DEFAULT_RECORD.interval;
        return ctx.request(`SAMPLE_START ${t} ${javaDouble(r)} ${i}`);
      },
    }),
    defineTool({
      name: 'record_stop',
      description: 'Stop the running recording started by record_start; the ack says how many samples were written. Stopping when ' + 'nothing records is harmless (samples=0). No event is emitted.',
      input: z.object({}).strict(),
      output: modAck,
      requires: ['record'],
      annotations: { readOnly: false, destructive: false, idempotent: true },
      passthrough: true,
      run: async (_args, ctx) => ctx.request('SAMPLE_STOP'),
    }),
  ],
});

export default clientPlugin;
