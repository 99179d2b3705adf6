#!/usr/bin/env node
// The installed command: runs the compiled CLI (`npm run build` makes it; `npm pack`, `npm start`
// and `npm test` build first).
import { main } from '../dist/core/frontends/cli/main.js';

process.exitCode = await main(process.argv);
