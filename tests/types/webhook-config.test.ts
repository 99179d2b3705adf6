/** The webhook plugin's options are typed by its own schema, nowhere in the public entry. */
import { expectTypeOf, it } from 'vitest';
import type { z } from 'zod';
import type { McbridgeConfig, ServiceContext } from 'mcbridge';
import type { webhookOptions, WebhookOptions } from '../../plugins/webhook/config.js';

it("the options type is the schema's, and the public config type knows no webhook key", () => {
  expectTypeOf<WebhookOptions>().toEqualTypeOf<z.infer<typeof webhookOptions>>();
  expectTypeOf<NonNullable<WebhookOptions['receivers']>[number]['url']>().toEqualTypeOf<undefined>();
  expectTypeOf<NonNullable<WebhookOptions['receivers']>[number]['urlEnv']>().toEqualTypeOf<string | undefined>();
  expectTypeOf<McbridgeConfig>().not.toHaveProperty('webhook');
  expectTypeOf<ServiceContext<WebhookOptions>['configDir']>().toEqualTypeOf<string>();
});
