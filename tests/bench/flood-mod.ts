import { once } from 'node:events';
import net from 'node:net';

/**
 * A minimal server-vantage mod for the benchmark (docs/protocol.md): it greets
 * first, answers CAPS, STATE and PING at once on the reading side, and on demand writes
 * a prepared flood of realistic event lines in large batched writes. Like the real mod it
 * never drops an event: its writes wait for the socket to drain (the mod's writes block).
 */

const CAPABILITIES = ['state', 'entities', 'player', 'player:view', 'command', 'context', 'wait', 'mark', 'snapshot', 'events:game', 'events:chat'];

export interface FloodPayload {
  /** The event lines, newline-terminated, packed into large chunks. */
  chunks: Buffer[];
  events: number;
  bytes: number;
  minLineBytes: number;
  maxLineBytes: number;
}

const PLAYERS = [
  { name: 'Notch', uuid: '069a79f4-44e9-4726-a5be-fca90e38aaf5' },
  { name: 'jeb_', uuid: '853c80ef-3c37-49fd-aa49-938b674adae6' },
  { name: 'Dinnerbone', uuid: '61699b2e-d327-4a01-9f1e-0ea8c3f06bc6' },
  { name: 'Alex', uuid: 'ec561538-f3fd-461d-aff5-086b22154bce' },
];

/** Command-output lines as a server prints them (the `game` events of docs/protocol.md#events). */
const GAME_TEXTS = [
  'Teleported Notch to 128.5, 71.0, -340.25 facing minecraft:overworld spawn chunk border near the village well',
  'There are 4 of a max of 20 players online: Notch, jeb_, Dinnerbone, Alex',
  'Set the time to 1000; the daylight cycle continues and mobs in the loaded chunks will despawn at dawn',
  'Notch has the following entity data: {Health: 20.0f, foodLevel: 20, XpLevel: 30, SelectedItemSlot: 0, Dimension: "minecraft:overworld"}',
  'Summoned new Zombie at 131.5, 64.0, -338.5 with tags [bench, flood] and a custom name of "Wave 3 #17"',
  'Filled 4096 blocks with minecraft:stone between 100, 60, -360 and 115, 75, -345 (replace mode)',
  'Gave 64 [Oak Planks] to Notch; the inventory now holds 5 stacks of building material',
  'Applied effect Speed II to jeb_ for 30 seconds; the previous effect of the same kind was replaced',
];

const CHAT_TEXTS = ['hello', 'anyone near spawn?', 'brb', 'look at this build', 'the farm is done', 'gg'];

function gameLine(i: number, millis: number): string {
  const text = GAME_TEXTS[i % GAME_TEXTS.length]!;
  return JSON.stringify({ type: 'game', millis, text: `${text} (${i})`, event: true });
}

function chatLine(i: number, millis: number, seq: number): string {
  const p = PLAYERS[i % PLAYERS.length]!;
  const text = CHAT_TEXTS[i % CHAT_TEXTS.length]!;
  if (i % 10 === 9) {
    // The degraded variant: no context id, the reason instead.
    return JSON.stringify({
      type: 'chat',
      millis,
      seq,
      text,
      sender: p.name,
      context: { available: false, reason: 'receipt_expired', receivedAt: millis - 61_000, ageMillis: 61_000 },
      event: true,
    });
  }
  // Key order as the mod emits it; a compact receipt-time bundle.
  const hex = ((seq * 2654435761) >>> 0).toString(16).padStart(8, '0');
  return JSON.stringify({
    type: 'chat',
    millis,
    seq,
    text,
    sender: p.name,
    context_id: `ctx-${hex}-5a41-4f0e-9d7a-2f1c0d9e8b77`,
    context: {
      schema: 'player-context/1',
      name: p.name,
      tick: 8451 + i,
      timing: 'receipt',
      dimension: 'minecraft:overworld',
      x: 10.5,
      y: 64,
      z: -3.25,
      yaw: 180,
      pitch: 12.5,
      view: { type: 'block' },
    },
    event: true,
  });
}

/** N event lines (3 in 4 `game`, 1 in 4 `chat`), packed into chunks of about `chunkBytes`. */
export function buildFloodPayload(events: number, chunkBytes = 256 * 1024): FloodPayload {
  const chunks: Buffer[] = [];
  let parts: string[] = [];
  let partBytes = 0;
  let bytes = 0;
  let minLineBytes = Infinity;
  let maxLineBytes = 0;
  let chatSeq = 0;
  const base = Date.now();
  for (let i = 0; i < events; i += 1) {
    const millis = base + Math.floor(i / 50);
    const line = (i % 4 === 3 ? chatLine(i, millis, ++chatSeq) : gameLine(i, millis)) + '\n';
    const n = Buffer.byteLength(line);
    minLineBytes = Math.min(minLineBytes, n);
    maxLineBytes = Math.max(maxLineBytes, n);
    parts.push(line);
    partBytes += n;
    bytes += n;
    if (partBytes >= chunkBytes) {
      chunks.push(Buffer.from(parts.join('')));
      parts = [];
      partBytes = 0;
    }
  }
  if (parts.length > 0) chunks.push(Buffer.from(parts.join('')));
  return { chunks, events, bytes, minLineBytes, maxLineBytes };
}

const STATE_REPLY_TAIL = {
  instance: 'server',
  protocol: 1,
  modVersion: '0.8.0',
  inWorld: true,
  levelName: 'world',
  worldDir: '/srv/mc/world/.',
  players: 1,
  serverVersion: '26.2',
  playerList: [{ name: 'Notch', uuid: PLAYERS[0]!.uuid, x: 10.5, y: 64, z: -3.25, dimension: 'minecraft:overworld' }],
  levels: [
    { dimension: 'minecraft:overworld', entities: 57 },
    { dimension: 'minecraft:the_nether', entities: 0 },
    { dimension: 'minecraft:the_end', entities: 0 },
  ],
};

export class FloodMod {
  private readonly server: net.Server;
  private readonly sockets = new Set<net.Socket>();
  private readonly waiters: Array<() => void> = [];
  private tick = 104_233;
  port = 0;
  /** Request verbs received, for the report. */
  readonly requests = new Map<string, number>();

  private constructor() {
    this.server = net.createServer((socket) => this.accept(socket));
  }

  static async start(): Promise<FloodMod> {
    const mod = new FloodMod();
    mod.server.listen(0, '127.0.0.1');
    await once(mod.server, 'listening');
    mod.port = (mod.server.address() as net.AddressInfo).port;
    return mod;
  }

  get connections(): number {
    return this.sockets.size;
  }

  /** Resolves once some client has connected and sent its first request (a daemon asks CAPS). */
  whenClientReady(): Promise<void> {
    if ([...this.requests.values()].some((n) => n > 0)) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Write the payload to every connection; resolves when the last chunk went to the kernel. */
  async flood(payload: FloodPayload): Promise<void> {
    const targets = [...this.sockets];
    if (targets.length === 0) throw new Error('flood mod: nobody is connected');
    await Promise.all(targets.map((socket) => writeAll(socket, payload.chunks)));
  }

  /** Write one chunk to every connection now, without waiting for a drain (a paced trickle, not a flood). */
  send(chunk: Buffer): void {
    for (const socket of this.sockets) if (!socket.destroyed) socket.write(chunk);
  }

  async stop(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(socket: net.Socket): void {
    socket.setNoDelay(true);
    this.sockets.add(socket);
    socket.on('error', () => {});
    socket.on('close', () => this.sockets.delete(socket));
    socket.write(
      JSON.stringify({
        type: 'hello',
        mod: 'mc-agent-interface',
        version: '0.8.0',
        protocol: 1,
        minecraft: '26.2',
        port: this.port,
        instance: 'server',
        capabilities: CAPABILITIES,
      }) + '\n',
    );
    let pending = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      pending += chunk;
      let nl: number;
      while ((nl = pending.indexOf('\n')) !== -1) {
        const line = pending.slice(0, nl).trim();
        pending = pending.slice(nl + 1);
        if (line) this.answer(socket, line);
      }
    });
  }

  private answer(socket: net.Socket, line: string): void {
    const verb = line.split(' ', 1)[0]!.toUpperCase();
    this.requests.set(verb, (this.requests.get(verb) ?? 0) + 1);
    let reply: Record<string, unknown>;
    switch (verb) {
      case 'CAPS':
        reply = { type: 'capabilities', millis: Date.now(), protocol: 1, mod: 'mc-agent-interface', version: '0.8.0', instance: 'server', capabilities: CAPABILITIES };
        break;
      case 'STATE':
        reply = { type: 'state', millis: Date.now(), tick: this.tick++, ...STATE_REPLY_TAIL };
        break;
      case 'PING':
        reply = { type: 'pong', t: Date.now() };
        break;
      default:
        reply = { type: 'error', millis: Date.now(), message: `unknown command: ${line}` };
    }
    if (!socket.destroyed) socket.write(JSON.stringify(reply) + '\n');
    for (const wake of this.waiters.splice(0)) wake();
  }
}

/** Write chunks in order, waiting for 'drain' whenever the socket buffer is full. */
function writeAll(socket: net.Socket, chunks: readonly Buffer[]): Promise<void> {
  return new Promise((resolve, reject) => {
    let i = 0;
    const onClose = () => reject(new Error('flood mod: the client closed during the flood'));
    socket.once('close', onClose);
    const pump = () => {
      while (i < chunks.length) {
        const ok = socket.write(chunks[i++]!);
        if (!ok) {
          socket.once('drain', pump);
          return;
        }
      }
      socket.off('close', onClose);
      resolve();
    };
    pump();
  });
}
