#!/usr/bin/env node
// The published entry: runs the compiled CLI (npm ci builds it through `prepare`).
import { main } from '../dist/core/frontends/cli/main.js';

process.exitCode = await main(process.argv);
