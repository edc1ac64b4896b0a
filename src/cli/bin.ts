#!/usr/bin/env node
// The executable: kept apart from main.ts so the program and its pieces can be imported without running it.
import { main } from './main.js';

process.exitCode = await main(process.argv.slice(2));
