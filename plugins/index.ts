import type { Plugin } from '../core/index.js';
import { capabilitiesPlugin } from './capabilities/index.js';
import { commandPlugin } from './command/index.js';
import { entitiesPlugin } from './entities/index.js';
import { eventsPlugin } from './events/index.js';
import { markPlugin } from './mark/index.js';
import { statePlugin } from './state/index.js';
import { statusPlugin } from './status/index.js';
import { waitPlugin } from './wait/index.js';

/** The capabilities every daemon serves, each through the public plugin API. */
export const builtinPlugins: Plugin[] = [
  statusPlugin,
  capabilitiesPlugin,
  statePlugin,
  entitiesPlugin,
  commandPlugin,
  eventsPlugin,
  markPlugin,
  waitPlugin,
];
