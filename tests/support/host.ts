/** Helpers for the host's unit tests: plugins, hosts that are never started, refusals. */
import net from 'node:net';
import { afterEach, expect } from 'vitest';
import { z } from 'zod';
import { McbridgeError } from '../../core/host/errors.js';
import { Host, type HostOptions } from '../../core/host/host.js';
import { definePlugin } from '../../core/host/define.js';
import { HOST_API_VERSION, type Plugin, type ToolSpec } from '../../core/host/plugin-api.js';
import { silentLogger } from '../../core/util/log.js';
/** A loopback port nothing listens on: bound by us, then released. */
export async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export function plugin(name: string, tools: ToolSpec[], extra: Partial<Plugin> = {}): Plugin {
  return definePlugin({ name, version: '1.0.0', apiVersion: HOST_API_VERSION, tools, ...extra });
}

const hosts: Host[] = [];

/** A host that is never started: its link stays idle and never dials anything. */
export function makeHost(plugins: Plugin[], options: Partial<HostOptions> = {}): Host {
  const host = new Host({
    log: silentLogger(),
    link: { modPort: 1 },
    plugins: plugins.map((p) => ({ plugin: p })),
    ...options,
  });
  hosts.push(host);
  return host;
}

/** Stop every host made with makeHost after each test of the file that calls this. */
export function stopHostsAfterEach(): void {
  afterEach(async () => {
    for (const host of hosts.splice(0)) await host.stop();
  });
}

export async function callError(p: Promise<unknown>): Promise<McbridgeError> {
  const err = await p.then(
    (value) => {
      throw new Error(`expected a rejection, got ${JSON.stringify(value)}`);
    },
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(McbridgeError);
  return err as McbridgeError;
}

/** A tool with the loose types these tests need. */
export function tool(name: string, extra: Partial<ToolSpec> = {}): ToolSpec {
  return { name, description: `the ${name} tool`, input: z.object({}), run: async () => null, ...extra };
}
