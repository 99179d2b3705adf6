/** Progress frames belong to a request in flight: none may follow its response. */
import { afterEach, describe, expect, it } from 'vitest';
import { definePlugin, defineTool } from '../../core/index.js';
import { startTestHost, type TestHost } from '../../core/testing/index.js';
import { rawConnection } from '../support/helpers.js';
import { z } from 'zod';

let host: TestHost | undefined;
afterEach(async () => {
  await host?.close();
  host = undefined;
});

describe('progress frames', () => {
  it('stop once the response is sent, even when the tool reports progress later', async () => {
    let lateReported!: () => void;
    const late = new Promise<void>((resolve) => (lateReported = resolve));
    const plugin = definePlugin({
      name: 'late-progress',
      version: '1.0.0',
      apiVersion: 1,
      tools: [
        defineTool({
          name: 'late_progress',
          description: 'Reports progress once before answering and once after.',
          input: z.object({}),
          run: async (_args, ctx) => {
            ctx.progress(1, 2, 'before');
            setImmediate(() => {
              ctx.progress(2, 2, 'after the response');
              lateReported();
            });
            return { done: true };
          },
        }),
      ],
    });
    host = await startTestHost({ plugins: [plugin], builtins: false });
    const raw = await rawConnection(host.port);
    raw.send(JSON.stringify({ id: 'p1', method: 'late_progress', params: {}, progress: true }));
    const frames: Array<Record<string, unknown>> = [];
    for (;;) {
      const frame = await raw.next();
      frames.push(frame);
      if (frame.type === 'response') break;
    }
    await late;
    // Frames on one connection keep their order: anything sent for p1 arrives before this answer.
    raw.send(JSON.stringify({ id: 'p2', method: 'ping' }));
    for (;;) {
      const frame = await raw.next();
      frames.push(frame);
      if (frame.type === 'response' && frame.id === 'p2') break;
    }
    raw.close();
    expect(frames.map((f) => [f.type, f.id, f.message ?? null])).toEqual([
      ['progress', 'p1', 'before'],
      ['response', 'p1', null],
      ['response', 'p2', null],
    ]);
  });
});
