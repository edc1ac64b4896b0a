// Remember `count` entries (`<label>-<index>`) in the user's record of `home`, from the instant `startAt` (epoch ms) on:
// every child started together rewrites the record at once. Prints "done" when all are remembered.
import { join } from 'node:path';
import { loadConfig } from '../../dist/cli/config/load-config.js';
import { stateRecord } from '../../dist/cli/runtime/state-record.js';

const [workspace, home, label, countText, startAtText] = process.argv.slice(2);
const record = stateRecord(loadConfig(workspace), home, 'http-tokens.json');
const startAt = Number(startAtText);
while (Date.now() < startAt) await new Promise((resolve) => setTimeout(resolve, 1));
for (let index = 0; index < Number(countText); index += 1) record.remember(join(workspace, `${label}-${String(index)}`), `${label}-${String(index)}`);
console.log('done');
