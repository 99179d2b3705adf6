/**
 * The MCP logs resource (docs/logs.md, "As an MCP resource"), with the real SDK client: the
 * newest records of a target's log as text, bounded, one URI per target on a daemon of several.
 */
import { describe, expect, it } from 'vitest';
import { startDaemon, type Daemon } from '../../../../core/daemon/daemon.js';
import { LOGS_RESOURCE_RECORDS, LOGS_URI } from '../../../../core/frontends/mcp/resources.js';
import type { Host } from '../../../../core/host/host.js';
import { serverConsole } from '../../../../core/kit/index.js';
import { startSim } from '../../../../core/sim/index.js';
import { silentLogger } from '../../../../core/util/log.js';
import { startStack } from '../../../support/helpers.js';
import { cleanupsAfterEach, connectInMemory, frontendFor } from '../../../support/mcp.js';

const defer = cleanupsAfterEach();

/** Console output as a launched server prints it, published where the logs plugin reads it. */
function print(host: Host, text: string): void {
  serverConsole(host.view()).publish({ stream: 'stdout', data: Buffer.from(text), at: Date.now() });
}

/** Until the host's logs tool holds `count` records (each ask a real call; the capture works between them). */
async function records(call: (params: Record<string, unknown>) => Promise<unknown>, count: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const page = (await call({ since: 0, limit: 10_000, max_bytes: 8 * 1024 * 1024 })) as { records: unknown[] };
    if (page.records.length >= count) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${count} log records, have ${page.records.length}`);
    await new Promise((r) => setImmediate(r));
  }
}

const textOf = (result: { contents: Array<Record<string, unknown>> }) => String(result.contents[0]?.text);

describe('the MCP logs resource', { timeout: 60_000 }, () => {
  it('lists mcbridge://logs and reads the newest records as text lines with their traces, at most a bounded page', async () => {
    const s = await startStack();
    defer(() => s.close());
    const frontend = frontendFor(s.daemon.apiAddress.port);
    defer(() => frontend.close());
    const { client } = await connectInMemory(frontend);
    await client.listTools();
    const listed = (await client.listResources()).resources.find((r) => r.uri === LOGS_URI);
    expect(listed).toMatchObject({ name: 'logs', mimeType: 'text/plain' });
    expect(textOf(await client.readResource({ uri: LOGS_URI }))).toBe('(no log records yet)\n');

    print(
      s.daemon.host,
      '[12:00:00] [Server thread/INFO]: Starting minecraft server version 26.2\n[12:00:01] [Server thread/ERROR]: tick failed\njava.lang.IllegalStateException: boom\n\tat net.minecraft.Foo.bar(Foo.java:1)\n[12:00:02] [Server thread/INFO]: Done\n',
    );
    await records((p) => s.client.call('logs', p), 3);
    const read = await client.readResource({ uri: LOGS_URI });
    expect(read.contents[0]).toMatchObject({ uri: LOGS_URI, mimeType: 'text/plain' });
    expect(textOf(read)).toBe(
      [
        '12:00:00 INFO [Server thread]: Starting minecraft server version 26.2',
        '12:00:01 ERROR [Server thread]: tick failed',
        'java.lang.IllegalStateException: boom',
        '\tat net.minecraft.Foo.bar(Foo.java:1)',
        '12:00:02 INFO [Server thread]: Done',
        '',
      ].join('\n'),
    );

    print(s.daemon.host, Array.from({ length: 400 }, (_, i) => `[12:01:00] [Server thread/INFO]: line ${i}\n`).join('') + '[12:02:00] [Server thread/INFO]: last\n');
    await records((p) => s.client.call('logs', p), 404);
    const lines = textOf(await client.readResource({ uri: LOGS_URI }))
      .trimEnd()
      .split('\n');
    expect(lines).toHaveLength(LOGS_RESOURCE_RECORDS + 1);
    expect(lines[0]).toMatch(/^\(older records before seq \d+: mc_logs with since\)$/);
    expect(lines.at(-1)).toBe('12:02:00 INFO [Server thread]: last');
  });

  it('on a daemon of several targets: one logs URI per target, each reading its own target’s log', async () => {
    const live = await startSim({ port: 0 });
    const lab = await startSim({ port: 0, seed: 2 });
    defer(() => live.stop());
    defer(() => lab.stop());
    const daemon: Daemon = await startDaemon({
      log: silentLogger(),
      configDir: live.dir,
      api: { port: 0 },
      targets: [
        { name: 'live', default: true, link: { modPort: live.port }, sim: false },
        { name: 'lab', default: false, link: { modPort: lab.port }, sim: false },
      ],
    });
    defer(() => daemon.stop());
    const frontend = frontendFor(daemon.apiAddress.port);
    defer(() => frontend.close());
    const { client } = await connectInMemory(frontend);
    await client.listTools();
    const uris = (await client.listResources()).resources.map((r) => r.uri);
    expect(uris).toEqual(expect.arrayContaining([`${LOGS_URI}/live`, `${LOGS_URI}/lab`]));
    expect(uris).not.toContain(LOGS_URI);
    expect((await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate)).toContain(`${LOGS_URI}/{target}`);

    const labHost = daemon.targets.hostsList().find((h) => h.target === 'lab')!;
    print(labHost, '[09:00:00] [Server thread/WARN]: only on lab\n');
    await records((p) => labHost.call('logs', p), 1);
    expect(textOf(await client.readResource({ uri: `${LOGS_URI}/lab` }))).toBe('09:00:00 WARN [Server thread]: only on lab\n');
    expect(textOf(await client.readResource({ uri: `${LOGS_URI}/live` }))).toBe('(no log records yet)\n');
    await expect(client.readResource({ uri: `${LOGS_URI}/nowhere` })).rejects.toThrow(/nowhere/);
  });
});
