// In each round, at an instant agreed with the other openers, open the round's fresh journal
// (`<dir>/j-<round>.db`), append one event and close it: several of these race to create each file.
import { join } from 'node:path';
import { createSqliteJournal } from 'toolgate/sqlite';

const [dir, label, startAtText, roundsText] = process.argv.slice(2);
const now = () => performance.timeOrigin + performance.now();
for (let round = 0; round < Number(roundsText); round += 1) {
  const at = Number(startAtText) + round * 40;
  if (at - now() > 5) await new Promise((resolve) => setTimeout(resolve, at - now() - 5));
  while (now() < at); // the last milliseconds spun, to line the openers up
  const journal = createSqliteJournal(join(dir, `j-${round}.db`), { onUnresolved: () => undefined });
  await journal.append({ type: 'opened', at: Date.now(), data: { label } });
  journal.close();
}
process.stdout.write('done\n');
