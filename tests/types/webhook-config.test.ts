/** `McbridgeConfig['webhook']` is written by hand in core/authoring; the webhook plugin's schema checks it. They must agree. */
import { expectTypeOf, it } from 'vitest';
import type { z } from 'zod';
import type { McbridgeConfig, WebhookConfig, WebhookReceiverConfig } from 'mcbridge';
import type { webhookConfigEntry } from '../../plugins/webhook/config.js';

type Entry = z.input<typeof webhookConfigEntry>;
type EntryReceiver = Omit<NonNullable<Entry['receivers']>[number], 'url' | 'secret'>;

it('the config type and the schema that checks it agree', () => {
  expectTypeOf<McbridgeConfig['webhook']>().toEqualTypeOf<WebhookConfig | undefined>();
  expectTypeOf<Required<Omit<Entry, 'receivers'>>>().toEqualTypeOf<Required<Omit<WebhookConfig, 'receivers'>>>();
  expectTypeOf<Required<EntryReceiver>>().toEqualTypeOf<Required<WebhookReceiverConfig>>();
});
