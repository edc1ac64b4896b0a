// One gateway's approvals on a shared pin file: read the file first (as connect does), say
// "ready", read the agreed start instant from stdin, then in each round approve two names of
// its own (`<label>-<round>-0` and `-1`, together) at an instant shared with the other children.
import { createHash } from 'node:crypto';
import { createInterface } from 'node:readline';
import { createJsonFilePinStore } from 'toolgate/mcp';

const [file, label, roundsText] = process.argv.slice(2);
const store = createJsonFilePinStore(file);
await store.get('up', 'nothing');
process.stdout.write('ready\n');
const lines = createInterface({ input: process.stdin });
const startAt = Number((await lines[Symbol.asyncIterator]().next()).value);
lines.close();
const now = () => performance.timeOrigin + performance.now();
const approve = (tool) => store.set({ server: 'up', tool, digest: createHash('sha256').update(tool).digest('hex'), approvedAt: new Date().toISOString(), approvedBy: label });
for (let round = 0; round < Number(roundsText); round += 1) {
  const at = startAt + round * 20;
  if (at - now() > 5) await new Promise((resolve) => setTimeout(resolve, at - now() - 5));
  while (now() < at); // the last milliseconds spun, to line the writers up
  await Promise.all([approve(`${label}-${round}-0`), approve(`${label}-${round}-1`)]);
}
process.stdout.write('done\n');
