/**
 * The predecessor's `mc-bridge forward` command lines (predecessor-python.md §6 and §8), run as
 * `mcbridge forward` against a real daemon process: its flags, their units and defaults, and
 * their precedence (flag over MC_AGENT_WEBHOOK_* over the file over the default).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../../core/api/client.js';
import { CliProcesses, runCli } from '../support/cli-process.js';
import { startDaemonProcess, type DaemonProcess } from '../support/daemon-process.js';
import { waitUntil } from '../support/helpers.js';
import { startReceiver } from '../plugins/webhook/test-receiver.js';

const SECRET = 'whsec-predecessor-forward';
const daemons = new CliProcesses();
const forwarders = new CliProcesses();
let daemon: DaemonProcess;
let client: ApiClient;
const open: Array<{ close(): unknown }> = [];

beforeAll(async () => {
  daemon = await startDaemonProcess(daemons, ['--sim']);
  client = await ApiClient.connect({ port: daemon.port });
}, 60_000);
afterEach(async () => {
  await forwarders.stopAll();
  for (const x of open.splice(0).reverse()) await x.close();
});
afterAll(async () => {
  client?.close();
  await daemons.stopAll();
});

const env = (url: string, extra: Record<string, string> = {}) => ({ MC_AGENT_WEBHOOK_URL: url, MC_AGENT_WEBHOOK_SECRET: SECRET, ...extra });

describe('mc-bridge forward command lines', { timeout: 60_000 }, () => {
  it("--events chat,game,mark,error and the retry flags map to the receiver, in the predecessor's units; a flag wins over its variable", async () => {
    const run = await runCli(
      [
        'forward',
        '--events',
        'chat,game,mark,error',
        '--queue',
        '64',
        '--max-attempts',
        '3',
        '--backoff',
        '0.5',
        '--max-backoff',
        '4',
        '--delivery-timeout',
        '2.5',
        '--reconnect-delay',
        '1.0',
        '--status',
        '--api-port',
        String(daemon.port),
      ],
      { env: env('http://127.0.0.1:9/hook', { MC_AGENT_WEBHOOK_QUEUE: '9', MC_AGENT_WEBHOOK_EVENTS: 'chat' }) },
    );
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({
      connected: true,
      receivers: [{ events: ['chat', 'game', 'mark', 'error'], queueSize: 64, maxAttempts: 3, backoff: 0.5, maxBackoff: 4, timeout: 2.5 }],
    });
    const defaults = await runCli(['forward', '--status', '--api-port', String(daemon.port)], { env: env('http://127.0.0.1:9/hook') });
    expect(JSON.parse(defaults.stdout).receivers[0]).toMatchObject({ events: ['chat', 'game', 'mark', 'error'], queueSize: 256, maxAttempts: 5, backoff: 1, maxBackoff: 30, timeout: 10 });
  });

  it('forwards with them: only the flagged categories, at most --max-attempts tries, then the counters on stdout at SIGTERM', async () => {
    const server = await startReceiver(SECRET, [], 500);
    open.push(server);
    const { child, out } = forwarders.start(
      ['forward', '--events', 'mark', '--max-attempts', '2', '--backoff', '0', '--max-backoff', '0', '--delivery-timeout', '5', '--api-port', String(daemon.port)],
      { env: env(server.url()) },
    );
    await waitUntil(() => out.stderr.includes('webhook forwarder connected to the daemon'), 30_000, 'the forwarder to connect');
    await client.call('mark', { text: 'forwarded' });
    await client.call('chat', { text: 'not forwarded' }).catch(() => undefined);
    await waitUntil(() => out.stderr.includes('gave up on'), 30_000, 'the forwarder to give up');
    expect(server.hits).toHaveLength(2);
    expect(server.hits.map((h) => h.json.event)).toEqual(['mark', 'mark']);
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
    expect(JSON.parse(out.stdout)).toMatchObject({ receivers: [{ delivered: 0, failed: 1, retries: 1 }] });
  });

  it('refuses bad values by their flag: a usage mistake exits 2, a value the forwarder cannot use exits 1', async () => {
    const port = ['--api-port', '1'];
    const cases: Array<[string[], number, RegExp]> = [
      [['--queue', '0'], 2, /--queue <n>.*expected a whole number 1 or more, got '0'/],
      [['--max-attempts', 'many'], 2, /--max-attempts <n>.*expected a whole number 1 or more/],
      [['--backoff', '-1'], 2, /--backoff <seconds>.*expected a number of seconds, 0 or more/],
      [['--delivery-timeout', '0'], 2, /--delivery-timeout <seconds>.*above 0/],
      [['--events', 'chat,bogus'], 1, /--events: unknown event category 'bogus'; use \* or some of/],
      [['--backoff', '5', '--max-backoff', '2'], 1, /max backoff \(2 s\) must be at least backoff \(5 s\)/],
    ];
    for (const [args, code, message] of cases) {
      const run = await runCli(['forward', ...args, '--status', ...port], { env: env('http://127.0.0.1:9/hook') });
      expect(run.code, `${args.join(' ')}: ${run.stderr}`).toBe(code);
      expect(run.stderr, args.join(' ')).toMatch(message);
    }
  });
});
