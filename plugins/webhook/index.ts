import { z } from 'zod';
import { definePlugin, defineTool, type Cursor, type EventCategory, type EventsView, type ServiceContext } from 'mcbridge';
import { DEFAULT_SPOOL_MAX_BYTES, resolvePaths, resolveReceivers, spoolOfTarget, webhookOptions, type WebhookOptions } from './config.js';
import { Forwarder, type ForwarderStatus } from './forwarder.js';
import { Spool } from './spool.js';

const tool = defineTool.withOptions(webhookOptions);

const spoolStatusOutput = z.object({
  file: z.string(),
  failing: z.boolean(),
  writes: z.number(),
  failures: z.number(),
  lastError: z.string().nullable(),
  lastWrittenAt: z.number().nullable(),
  bytes: z.number(),
  maxBytes: z.number(),
  damaged: z.object({ skipped: z.number(), movedTo: z.string().optional(), moveError: z.string().optional() }).optional(),
});

/**
 * Forwards game events to HTTP receivers as signed POSTs (the predecessor's `forward`, inside
 * the daemon). Off unless a receiver is configured. A factory, so every host gets its own state.
 */
export function createWebhookPlugin() {
  let forwarder: Forwarder | undefined;
  let stopFollowing: AbortController | undefined;
  let following: Promise<void> | undefined;

  const status = (): ForwarderStatus | { enabled: false; off: string; connected: false; receivers: [] } =>
    forwarder?.status() ?? { enabled: false, off: 'the webhook service is not running', connected: false, receivers: [] };

  let service: ServiceContext<WebhookOptions> | undefined;

  async function follow(ctx: ServiceContext<WebhookOptions>, f: Forwarder, signal: AbortSignal, since: Cursor | undefined): Promise<void> {
    const categories = f.categories() as EventCategory[] | undefined;
    f.setConnected(true);
    try {
      for await (const item of ctx.events.follow({ signal, since, ...(categories ? { categories } : {}) })) f.handle(item);
    } catch (err) {
      ctx.log.error({ err: (err as Error).message }, 'webhook: following the event log failed; nothing more is forwarded');
    } finally {
      f.setConnected(false);
    }
  }

  return definePlugin({
    name: 'webhook',
    version: '1.0.0',
    apiVersion: 1,
    description: 'Forward game events to HTTP receivers as signed POSTs',
    options: webhookOptions,
    services: [
      {
        name: 'forwarder',
        start(ctx) {
          // Refusals (a URL without a secret, a bad number) throw: the plugin is left out and the message shown.
          const resolvedPaths = resolvePaths(ctx.config, ctx.configDir);
          const options = resolvedPaths.spool === undefined ? resolvedPaths : { ...resolvedPaths, spool: spoolOfTarget(resolvedPaths.spool, ctx.host.target) };
          const resolved = resolveReceivers(options, process.env);
          const f = new Forwarder(resolved, ctx.log);
          forwarder = f;
          if (resolved.off) {
            ctx.log.info(resolved.off);
            return;
          }
          const since = options.spool ? resumeFrom(f, new Spool(options.spool, options.spoolMaxBytes ?? DEFAULT_SPOOL_MAX_BYTES), ctx.events) : undefined;
          f.start();
          service = ctx;
          stopFollowing = new AbortController();
          following = follow(ctx, f, AbortSignal.any([ctx.signal, stopFollowing.signal]), since);
        },
        async stop() {
          stopFollowing?.abort();
          await following;
          // The link has stopped: whatever the follower had not reached yet is queued (and spooled) too.
          const spooled = service?.config.spool !== undefined;
          if (forwarder && service && spooled) drain(forwarder, service.events);
          await forwarder?.stop(spooled);
        },
        status: () => ({ ...status() }),
      },
    ],
    tools: [
      tool({
        name: 'webhook_status',
        description:
          'The webhook forwarder: per receiver its redacted URL (scheme://host:port), forwarded categories and counters ' +
          "(queued, delivered, retries, failed, dropped, gaps, lastEventId, lastError), the spool's health (writes, failures such as a full disk), or why forwarding is off. Changes nothing.",
        input: z.object({}).strict(),
        output: z.object({
          enabled: z.boolean(),
          off: z.string().optional(),
          connected: z.boolean(),
          receivers: z.array(z.unknown()),
          spool: z.string().optional(),
          spoolStatus: spoolStatusOutput.optional(),
        }),
        annotations: { readOnly: true, idempotent: true },
        run: async () => status(),
      }),
    ],
  });
}

/**
 * Take back what the spool holds and say where to follow from. The same stream (the plugin was
 * restarted in this daemon run): after the last event handed over. A new stream (the daemon
 * restarted): its events from the first one the ring still holds; the old stream's events after
 * the cursor are gone, which counts as a gap unless the old run stopped cleanly, having queued
 * everything its stream held. A fresh spool: from now.
 */
function resumeFrom(f: Forwarder, spool: Spool, events: EventsView): Cursor {
  const { state, resume } = f.takeSpool(spool);
  let seq: number;
  if (resume.streamId === undefined) seq = events.lastSeq;
  else if (resume.streamId === events.streamId) seq = resume.lastSeq ?? 0;
  else {
    if (!state.closed) f.handle({ kind: 'gap', reason: 'stream-reset', dropped: 0, from: 0, to: 0 });
    seq = 0;
  }
  f.moveTo({ streamId: events.streamId, lastSeq: seq });
  return { streamId: events.streamId, seq };
}

/** Hand over every event recorded after the forwarder's last one (the follower stopped first). */
function drain(f: Forwarder, events: EventsView): void {
  const at = f.position();
  if (at.streamId !== events.streamId || at.lastSeq === undefined) return;
  const wanted = f.categories();
  let since: Cursor = { streamId: events.streamId, seq: at.lastSeq };
  for (;;) {
    const page = events.query({ since, limit: 1000, ...(wanted ? { filter: (e) => wanted.includes(e.category) } : {}) });
    // The ring moved past the cursor before the stop: those events are lost, and the spool, marked
    // closed, must not let the next run take that for a clean hand-over.
    if (page.evicted > 0) f.handle({ kind: 'gap', reason: 'evicted', dropped: page.evicted, from: since.seq + 1, to: since.seq + page.evicted });
    for (const event of page.events) f.handle({ kind: 'event', event });
    if (!page.truncated) return;
    since = { streamId: events.streamId, seq: page.next };
  }
}

export const webhookPlugin = createWebhookPlugin();
export default webhookPlugin;
