/** Values for every entry of the option table, typed by it: adding an option without them fails to compile. */
import type { OptionKey } from '../../core/authoring/options.js';
import type { McbridgeConfig } from '../../core/authoring/config.js';

/** A value each entry's schema accepts, none of them the default. */
export const VALID: Required<Pick<McbridgeConfig, OptionKey>> = {
  vantage: 'client',
  serverDir: 'game',
  portFile: 'game/port.txt',
  modPort: 25599,
  sim: true,
  modHost: 'mc.example',
  reconnectDelay: 0.5,
  buffer: 50,
  bufferBytes: 16,
  pushBuffer: 2,
  activityLog: 'logs/activity.jsonl',
  allowRemote: true,
  apiHost: '127.0.0.2',
  apiPort: 9000,
  apiToken: 's3cret-token-0123456',
  logLevel: 'debug',
  logFormat: 'pretty',
  readOnly: true,
  allow: ['state', 'sky_*'],
  deny: ['mark'],
  watch: false,
};

/** A value each entry's schema refuses: in a config, and (for flags that take one) on the command line. */
export const INVALID: { [K in OptionKey]: { config: unknown; flag?: string } } = {
  vantage: { config: 'side', flag: 'side' },
  serverDir: { config: '', flag: '' },
  portFile: { config: '', flag: '' },
  modPort: { config: 0, flag: '0' },
  sim: { config: 'yes' },
  modHost: { config: '', flag: '' },
  reconnectDelay: { config: 0, flag: 'soon' },
  buffer: { config: 0, flag: '0' },
  bufferBytes: { config: 0, flag: '0' },
  pushBuffer: { config: 4097, flag: '4097' },
  activityLog: { config: '', flag: '' },
  allowRemote: { config: 1 },
  apiHost: { config: '', flag: '' },
  apiPort: { config: 65536, flag: 'x8765' },
  apiToken: { config: 'short', flag: 'short' },
  logLevel: { config: 'loud', flag: 'loud' },
  logFormat: { config: 'colour', flag: 'colour' },
  readOnly: { config: 'true' },
  allow: { config: [''] },
  deny: { config: 'mark' },
  watch: { config: 'no' },
};
