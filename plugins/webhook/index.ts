import { z } from 'zod';
import { definePlugin, defineTool, type EventCategory, type ServiceContext } from 'mcbridge';
import { resolveReceivers, webhookOptions, type WebhookOptions } from './config.js';
import { Forwarder, type ForwarderStatus } from './forwarder.js';

const tool = defineTool.withOptions(webhookOptions);

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

  async function follow(ctx: ServiceContext<WebhookOptions>, f: Forwarder, signal: AbortSignal): Promise<void> {
    const categories = f.categories() as EventCategory[] | undefined;
    f.setConnected(true);
    try {
      for await (const item of ctx.events.follow({ signal, ...(categories ? { categories } : {}) })) f.handle(item);
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
    services: [{
      name: 'forwarder',
      start(ctx) {
        // Refusals (a URL without a secret, a bad number) throw: the plugin is left out and the message shown.
        const resolved = resolveReceivers(ctx.config, process.env);
        const f = new Forwarder(resolved, ctx.log);
        forwarder = f;
        if (resolved.off) {
          ctx.log.info(resolved.off);
          return;
        }
        f.start();
        stopFollowing = new AbortController();
        following = follow(ctx, f, AbortSignal.any([ctx.signal, stopFollowing.signal]));
      },
      async stop() {
        stopFollowing?.abort();
        await following;
        await forwarder?.stop();
      },
      status: () => ({ ...status() }),
    }],
    tools: [
      tool({
        name: 'webhook_status',
        description:
          'The webhook forwarder: per receiver its redacted URL (scheme://host:port), forwarded categories and counters ' +
          '(queued, delivered, retries, failed, dropped, gaps, lastEventId, lastError), or why forwarding is off. Changes nothing.',
        input: z.object({}).strict(),
        output: z.object({ enabled: z.boolean(), off: z.string().optional(), connected: z.boolean(), receivers: z.array(z.unknown()) }),
        annotations: { readOnly: true, idempotent: true },
        run: async () => status(),
      }),
    ],
  });
}

export const webhookPlugin = createWebhookPlugin();
export default webhookPlugin;
