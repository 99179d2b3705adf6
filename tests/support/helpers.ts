import { once } from 'node:events';
import net from 'node:net';
import { ApiClient } from '../../core/api/client.js';
import { startDaemon, type Daemon, type DaemonOptions } from '../../core/daemon/daemon.js';
import type { LinkSettings } from '../../core/host/host.js';
import { LineSplitter } from '../../core/util/lines.js';
import { silentLogger } from '../../core/util/log.js';
import { startSim, type SimOptions, type SimulatedMod } from '../../core/sim/index.js';
import { waitUntil } from './wait-until.js';

export { waitUntil };

export interface Stack {
  sim: SimulatedMod;
  daemon: Daemon;
  client: ApiClient;
  close(): Promise<void>;
}

/** A simulated mod, a daemon connected to it and an API client, all on real loopback sockets. */
type LegacySettings = Extract<LinkSettings, { modPort?: number }>;

export async function startStack(options: { sim?: SimOptions; daemon?: Partial<DaemonOptions>; waitConnected?: boolean } = {}): Promise<Stack> {
  const sim = await startSim({ port: 0, ...options.sim });
  const daemon = await startDaemon({
    log: silentLogger(),
    configDir: sim.dir, // world journals (plugins/snapshot/journal.ts) go beside the sim, not into the repository
    ...options.daemon,
    vantage: options.sim?.vantage ?? options.daemon?.vantage ?? 'server',
    link: { modPort: sim.port, reconnectMinMs: 20, reconnectMaxMs: 200, ...(options.daemon?.link as LegacySettings | undefined) },
    api: { port: 0, ...options.daemon?.api },
  });
  if (options.waitConnected !== false) await waitUntil(() => daemon.host.link.connected, 5_000, 'the daemon to connect to the sim');
  const client = await ApiClient.connect({ port: daemon.apiAddress.port, token: options.daemon?.api?.token });
  return {
    sim,
    daemon,
    client,
    async close() {
      client.close();
      await daemon.stop();
      await sim.stop();
    },
  };
}

/** A raw line-oriented TCP client, for sending frames the typed client would refuse to send. */
export async function rawConnection(port: number): Promise<{ send(line: string | Buffer): void; next(): Promise<Record<string, unknown>>; close(): void }> {
  const socket = net.connect({ host: '127.0.0.1', port });
  await once(socket, 'connect');
  const lines: string[] = [];
  const waiters: Array<(line: string) => void> = [];
  const splitter = new LineSplitter({
    onLine: (line) => {
      const waiter = waiters.shift();
      if (waiter) waiter(line);
      else lines.push(line);
    },
  });
  socket.on('data', (chunk: Buffer) => splitter.push(chunk));
  return {
    send: (line) => socket.write(typeof line === 'string' ? line + '\n' : line),
    next: () =>
      new Promise((resolve, reject) => {
        // A hang detector, not a timing assertion: roomy for a loaded machine.
        const timer = setTimeout(() => reject(new Error('no line within 20 s')), 20_000);
        const take = (line: string) => {
          clearTimeout(timer);
          resolve(JSON.parse(line));
        };
        const queued = lines.shift();
        if (queued !== undefined) take(queued);
        else waiters.push(take);
      }),
    close: () => socket.destroy(),
  };
}

/** A free loopback port (closed again before returning). */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as net.AddressInfo;
  server.close();
  await once(server, 'close');
  return port;
}

/** Whether nothing listens on the port any more (the connection is refused). */
export function refuses(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(true));
  });
}
