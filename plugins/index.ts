import type { Plugin } from '../core/index.js';
import { capabilitiesPlugin } from './capabilities/index.js';
import { clientPlugin } from './client/index.js';
import { commandPlugin } from './command/index.js';
import { commandOutputPlugin } from './command-output/index.js';
import { contextPlugin } from './context/index.js';
import { entitiesPlugin } from './entities/index.js';
import { eventsPlugin } from './events/index.js';
import { markPlugin } from './mark/index.js';
import { playerPlugin } from './player/index.js';
import { savePlugin } from './save/index.js';
import { statePlugin } from './state/index.js';
import { statusPlugin } from './status/index.js';
import { waitPlugin } from './wait/index.js';
import { waitForPlugin } from './wait-for/index.js';

/** The capabilities every daemon serves, each through the public plugin API. */
export const builtinPlugins: Plugin[] = [
  statusPlugin,
  capabilitiesPlugin,
  statePlugin,
  savePlugin,
  playerPlugin,
  entitiesPlugin,
  commandPlugin,
  commandOutputPlugin,
  contextPlugin,
  eventsPlugin,
  waitForPlugin,
  markPlugin,
  waitPlugin,
  clientPlugin,
];
