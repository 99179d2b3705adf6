/**
 * The simulated mod's control protocol 1 listener (the mod's docs/control-protocol.md, as
 * fetched for issue 26): TLS 1.2+ beside the legacy port, credentials, sequenced events with
 * replay, and the run state (write ledger, leases) that a restart throws away. Requests are
 * carried out by dispatch.ts; this file owns the listener, the run and the test knobs.
 */
import fs from 'node:fs';
import path from 'node:path';
import tls from 'node:tls';
import type { Reply } from '../host.js';
import { toJavaJson } from '../json.js';
import { consoleCommand } from './console.js';
import { dispatch, isWriteOp } from './dispatch.js';
import { frameOf, type Frame } from './frames.js';
import { controlDir, instanceIdOf, loadIdentity, randomId, type Identity } from './identity.js';
import { Leases } from './leases.js';
import { WriteLedger, type WireError } from './ledger.js';
import { ControlSession, type ControlRequest, type Limits, type Outcome, type SessionHost } from './session.js';
import { type Grant, TokenStore } from './tokens.js';

export interface ControlOptions {
  port?: number;
  maxFrameBytes?: number;
  maxPendingRequests?: number;
  requestTimeoutMillis?: number;
  eventBuffer?: number;
  maxDroppedEvents?: number;
  handshakeSeconds?: number;
  idleSeconds?: number;
  certFile?: string;
  keyFile?: string;
}

/** What the control server needs from the sim. */
export interface ControlHost {
  readonly host: string;
  readonly modDir: string;
  readonly version: string;
  readonly vantage: 'server' | 'client';
  millis(): number;
  capabilities(): readonly string[];
  /** One legacy verb line, carried out as the legacy socket would; null when no reply will come. */
  runVerb(line: string): Promise<Reply | null>;
}

interface RingEntry {
  seq: number;
  millis: number;
  event: string;
}

interface DropKnob {
  op: string;
  remaining: number;
  close: boolean;
}

export class ControlServer implements SessionHost {
  readonly limits: Limits;
  readonly dir: string;
  /** The read+write credential issued at a start that found none usable; null otherwise. */
  bootstrapToken: string | null = null;
  instanceId = '';
  runId = '';
  runStartedAtMillis = 0;
  writeSeq = 0;
  ledger: WriteLedger;
  leases: Leases;
  readonly tokens: TokenStore;
  private identity: Identity | null = null;
  private server: tls.Server | null = null;
  private boundPort = 0;
  private seq = 0;
  private ring: RingEntry[] = [];
  private readonly sessionSet = new Set<ControlSession>();
  private readonly dropKnobs: DropKnob[] = [];
  private readonly holds = new Map<string, { released: Promise<void>; release: () => void }>();

  constructor(
    readonly sim: ControlHost,
    private readonly options: ControlOptions,
  ) {
    this.limits = {
      maxFrameBytes: options.maxFrameBytes ?? 16 * 1024 * 1024,
      maxPendingRequests: options.maxPendingRequests ?? 32,
      requestTimeoutMillis: options.requestTimeoutMillis ?? 30_000,
      idleSeconds: options.idleSeconds ?? 300,
      handshakeSeconds: options.handshakeSeconds ?? 10,
      eventBuffer: options.eventBuffer ?? 1024,
      maxDroppedEvents: options.maxDroppedEvents ?? 4096,
      controlProtocol: 1,
    };
    this.dir = controlDir(sim.modDir);
    fs.mkdirSync(this.dir, { recursive: true });
    this.tokens = new TokenStore(TokenStore.fileIn(this.dir), () => sim.millis());
    this.ledger = new WriteLedger(() => sim.millis());
    this.leases = new Leases(() => sim.millis());
  }

  get port(): number {
    return this.boundPort;
  }

  get fingerprint(): string {
    return this.identity?.fingerprint ?? '';
  }

  get certFile(): string {
    return path.join(this.dir, 'server.crt');
  }

  get fingerprintFile(): string {
    return path.join(this.dir, 'fingerprint.txt');
  }

  /** Live (welcomed) sessions. */
  get sessions(): number {
    return [...this.sessionSet].filter((s) => s.live && s.isOpen).length;
  }

  millis(): number {
    return this.sim.millis();
  }

  /** A new run: new runId, empty ring, ledger and leases; listens (on the old port when it can); then fingerprint.txt. */
  async start(): Promise<void> {
    fs.rmSync(this.fingerprintFile, { force: true });
    this.identity ??= await loadIdentity(this.sim.modDir, this.options);
    this.instanceId = instanceIdOf(this.sim.modDir);
    this.runId = randomId('run');
    this.runStartedAtMillis = this.sim.millis();
    this.seq = 0;
    this.writeSeq = 0;
    this.ring = [];
    this.ledger = new WriteLedger(() => this.sim.millis());
    this.leases = new Leases(() => this.sim.millis());
    const wanted = this.boundPort || this.options.port || 0;
    try {
      this.boundPort = await this.listen(wanted);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE' || wanted === this.options.port) throw err;
      this.boundPort = await this.listen(0);
    }
    fs.writeFileSync(this.fingerprintFile, `${this.identity.fingerprint}\n`);
    if (!this.tokens.hasUsable()) this.bootstrapToken = this.tokens.add('bootstrap', 'read+write').token;
  }

  private listen(port: number): Promise<number> {
    const identity = this.identity!;
    return new Promise((resolve, reject) => {
      const server = tls.createServer({ key: identity.key, cert: identity.cert, minVersion: 'TLSv1.2', handshakeTimeout: this.limits.handshakeSeconds * 1000 }, (socket) => {
        this.sessionSet.add(new ControlSession(socket, this));
      });
      server.once('error', reject);
      server.listen({ port, host: this.sim.host, exclusive: true }, () => {
        server.off('error', reject);
        server.on('error', () => {}); // a bad client must never stop the sim
        server.on('tlsClientError', () => {}); // plain text, TLS below 1.2, a handshake timeout: the socket just closes
        this.server = server;
        resolve((server.address() as { port: number }).port);
      });
    });
  }

  /** Sessions end, the listener closes; the run's ledger and leases go with the next start. */
  async stop(): Promise<void> {
    for (const session of [...this.sessionSet]) session.close();
    const server = this.server;
    this.server = null;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  closed(session: ControlSession): void {
    this.sessionSet.delete(session);
  }

  // ---- events ------------------------------------------------------------------------------

  private envelope(entry: RingEntry, replay: boolean): Buffer {
    const flag = replay ? '"replay":true,' : '';
    const run = JSON.stringify(this.runId);
    return frameOf(`{"type":"event","seq":${entry.seq},"runId":${run},"streamId":${run},${flag}"serverTimeMillis":${entry.millis},"event":${entry.event}}`);
  }

  /** A legacy event line (already JSON), sequenced into the ring and pushed to every live session. */
  publish(eventJson: string): void {
    const entry = { seq: ++this.seq, millis: this.sim.millis(), event: eventJson };
    this.ring.push(entry);
    if (this.ring.length > this.limits.eventBuffer) this.ring.shift();
    if (this.sessionSet.size === 0) return;
    const frame = this.envelope(entry, false);
    for (const session of this.sessionSet) session.pushEvent(frame);
  }

  /** An event of the control layer itself (a `write`), sequenced like the game's. */
  publishEvent(event: Reply): void {
    this.publish(toJavaJson(event));
  }

  /** What a hello's lastSeq/runId get back: the replay report and the envelopes to resend. */
  private replayFor(lastSeq: unknown, runId: unknown): { report: Frame; frames: Buffer[] } {
    const report = (requestedSince: number, from: number, lost: boolean, entries: RingEntry[]) => ({
      report: { requestedSince, from, to: this.seq, lost, bufferedEvents: entries.length, persistedAcrossRuns: false },
      frames: entries.map((e) => this.envelope(e, true)),
    });
    if (typeof lastSeq !== 'number' || !Number.isInteger(lastSeq) || lastSeq < 0) return report(this.seq, this.seq + 1, false, []);
    const otherRun = (typeof runId === 'string' && runId !== this.runId) || lastSeq > this.seq;
    const since = otherRun ? 0 : lastSeq;
    const entries = this.ring.filter((e) => e.seq > since);
    const oldest = this.ring[0]?.seq ?? this.seq + 1;
    return report(lastSeq, entries[0]?.seq ?? this.seq + 1, otherRun || oldest > since + 1, entries);
  }

  // ---- sessions ----------------------------------------------------------------------------

  greet(session: ControlSession, hello: Frame): { welcome: Frame; replay: Buffer[] } | { error: WireError } {
    const token = this.tokens.verify(hello.token);
    if (!token) return { error: { code: 'unauthorized', message: 'the access credential was rejected', retryable: false, resultUnknown: false } };
    session.token = token;
    const { report, frames } = this.replayFor(hello.lastSeq, hello.runId);
    const welcome: Frame = {
      type: 'welcome',
      protocol: 1,
      mod: 'mc-agent-interface',
      modVersion: this.sim.version,
      minecraft: '26.2',
      instanceId: this.instanceId,
      runId: this.runId,
      runStartedAtMillis: this.runStartedAtMillis,
      sessionId: session.sessionId,
      transport: 'same-port-tls',
      serverTimeMillis: this.sim.millis(),
      permissions: [...token.permissions],
      capabilities: [...this.sim.capabilities()],
      replay: report,
      limits: { ...this.limits },
    };
    return { welcome, replay: frames };
  }

  isWrite(op: string): boolean {
    return isWriteOp(op);
  }

  async run(session: ControlSession, request: ControlRequest): Promise<Outcome> {
    let outcome: Outcome;
    try {
      outcome = await dispatch(this, session, request);
    } catch (err) {
      const error = { code: 'internal', message: (err as Error).message, retryable: false, resultUnknown: isWriteOp(request.op) };
      outcome = { reply: { type: 'reply', ok: false, id: request.id, error, serverTimeMillis: this.sim.millis() } };
    }
    const knob = this.dropKnobs.find((k) => k.op === request.op && k.remaining > 0);
    if (!knob) return outcome;
    knob.remaining--;
    return { reply: null, close: knob.close };
  }

  /** Every session (any connection) that proves `tokenId`. */
  sessionsOf(tokenId: string): ControlSession[] {
    return [...this.sessionSet].filter((s) => s.token?.id === tokenId);
  }

  /** Resolves once `op` is not held (holdOp). */
  gate(op: string): Promise<void> | null {
    return this.holds.get(op)?.released ?? null;
  }

  // ---- administration and knobs ------------------------------------------------------------

  addToken(label: string, grant: Grant, ttlSeconds?: number): { id: string; token: string } {
    return this.tokens.add(label, grant, ttlSeconds);
  }

  /** Revokes a credential: its live sessions are closed and its leases released. */
  revoke(id: string): boolean {
    if (!this.tokens.revoke(id)) return false;
    for (const session of this.sessionsOf(id)) session.fatal('unauthorized', 'the access credential was revoked');
    this.leases.dropHeldBy(id);
    return true;
  }

  /** The op still runs, its reply is never sent (`times`, default 1); `close`: the connection then drops. */
  dropReplyOf(op: string, options: { times?: number; close?: boolean } = {}): void {
    this.dropKnobs.push({ op, remaining: options.times ?? 1, close: options.close ?? false });
  }

  /** Requests of `op` wait (request_status: pending) until released. */
  holdOp(op: string): { release(): void } {
    let release = () => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    const hold = {
      released,
      release: () => {
        if (this.holds.get(op) === hold) this.holds.delete(op);
        release();
      },
    };
    this.holds.set(op, hold);
    return { release: hold.release };
  }

  /** `mcagent control ...` on the console (through CMD); null: not a control command. */
  console(command: string): string[] | null {
    return consoleCommand(this, command);
  }

  /** STATE's `control` member. */
  status(): Reply {
    const dropped = [...this.sessionSet].reduce((sum, s) => sum + s.droppedEvents, 0);
    return { enabled: true, transport: 'same-port-tls', port: this.boundPort, sessions: this.sessions, lastSeq: this.seq, droppedEvents: dropped };
  }
}
