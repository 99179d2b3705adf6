/**
 * `mcp --embedded` on an API port that something else holds: the daemon it starts takes a free
 * port. The daemon says a taken port in its own words (`unavailable`, reason `port_taken`), so
 * the fallback must know that error and not only a bare EADDRINUSE.
 */
import net from 'node:net';
import { afterEach, expect, it } from 'vitest';
import { ApiClient } from '../../../../core/api/client.js';
import { EmbeddedDaemon } from '../../../../core/frontends/mcp/embedded.js';
import { silentLogger } from '../../../../core/util/log.js';

const cleanups: Array<() => Promise<unknown> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

it('starts its daemon on a free port when the API port is taken, and that daemon answers', async () => {
  const squatter = net.createServer((socket) => socket.destroy());
  await new Promise<void>((r) => squatter.listen(0, '127.0.0.1', r));
  cleanups.push(() => new Promise<void>((r) => squatter.close(() => r())));
  const taken = (squatter.address() as net.AddressInfo).port;

  const embedded = new EmbeddedDaemon({ api: { host: '127.0.0.1', port: taken }, sim: true, log: silentLogger() });
  cleanups.push(() => embedded.stop());
  const address = await embedded.startIfNeeded();
  expect(address).not.toBeNull();
  expect(address!.port).not.toBe(taken);
  const api = await ApiClient.connect({ port: address!.port });
  cleanups.push(() => api.close());
  expect(await api.call('state', {})).toMatchObject({ type: 'state' });
});
