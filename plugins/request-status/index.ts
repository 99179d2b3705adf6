import { z } from 'zod';
import { definePlugin, defineTool } from 'mcbridge';
import { isObject } from 'mcbridge/kit';

/**
 * `request_status`: what the game's own ledger says of a write whose answer was lost (control
 * protocol 1); on a legacy target, whose mod keeps no ledger, the daemon's own answers (it
 * outlives a daemon restart). docs/control.md.
 */
export const requestStatusPlugin = definePlugin({
  name: 'request-status',
  version: '1.0.0',
  apiVersion: 1,
  guide: 'A write (command, chat, mark, snapshot) that failed with resultUnknown may have run: ask `request_status` with its requestId before doing anything else; never send it again under a new id.',
  verbs: {
    // Never sent over the legacy socket: the legacy link answers it from the daemon's ledger.
    REQUEST_STATUS: (requestId) => ({ replies: ['request_status'], legacy: false, control: { op: 'request_status', params: { requestId } } }),
  },
  tools: [
    defineTool({
      name: 'request_status',
      description:
        "Whether a write the game was sent ran: the server's ledger answers pending, completed (with the result), failed (with the error) " +
        'or unknown (no record: the game restarted, or the id was never sent; then check the game itself and do not retry blindly). ' +
        "On a legacy target the daemon's own ledger answers (source: daemon), across daemon restarts; there unknown with sent: true means it was sent and may have run. " +
        'Use the requestId an error with resultUnknown named. A ledger keeps 1024 writes for 30 minutes.',
      input: z
        .object({
          request_id: z
            .string()
            .regex(/^[A-Za-z0-9._:-]{1,128}$/, '1 to 128 letters, digits or . _ : -')
            .describe('the requestId an error named'),
        })
        .strict(),
      output: z.looseObject({
        requestId: z.string(),
        state: z.enum(['pending', 'completed', 'failed', 'unknown']),
        operation: z.string().optional(),
        result: z.unknown().optional(),
        error: z.unknown().optional(),
      }),
      annotations: { readOnly: true, idempotent: true },
      paramAliases: { requestId: 'request_id' },
      run: async ({ request_id }, ctx) => {
        const reply = await ctx.request(`REQUEST_STATUS ${request_id}`);
        const state = typeof reply.state === 'string' && ['pending', 'completed', 'failed', 'unknown'].includes(reply.state) ? reply.state : 'unknown';
        const out: Record<string, unknown> = { ...reply, requestId: typeof reply.requestId === 'string' ? reply.requestId : request_id, state };
        if (isObject(out) && out.type === 'result') delete out.type;
        return out as { requestId: string; state: 'pending' | 'completed' | 'failed' | 'unknown' };
      },
    }),
  ],
});

export default requestStatusPlugin;
