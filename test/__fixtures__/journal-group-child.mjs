// Effect-tier calls dispatched in waves (64 at a time unless told) through a
// SQLite journal, so their claims and settles are group-committed; with a key
// directory the journal signs. Each body appends its call id to the effects
// file. Run once, the parent kills it with SIGKILL mid-run; run again with the
// same call ids, it prints how many ran, replayed or were refused.
import { appendFileSync } from 'node:fs';
import { createToolRegistry, defineTool } from 'toolgate';
import { createSqliteJournal } from 'toolgate/sqlite';

const [dbPath, effectsPath, wavesText, widthText = '64', keyDir] = process.argv.slice(2);
const width = Number(widthText);
const journal = createSqliteJournal(dbPath, { onUnresolved: () => undefined, ...(keyDir === undefined ? {} : { sign: { keyDir } }) });
const effect = defineTool({
  name: 'effect',
  description: 'Record that the effect happened.',
  input: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'], additionalProperties: false },
  journal: 'effect',
  dispatch: (args) => {
    appendFileSync(effectsPath, `${args.id}\n`);
    return { done: args.id };
  },
});
const registry = createToolRegistry({ tools: [effect], journal });
const counts = { ok: 0, replayed: 0, refused: 0 };
for (let wave = 0; wave < Number(wavesText); wave += 1) {
  const calls = Array.from({ length: width }, (_, index) => `call-${wave}-${index}`);
  const outcomes = await Promise.all(calls.map((id) => registry.dispatch({ callId: id, name: 'effect', arguments: { id } }, { grantedTools: ['effect'], runId: 'group' })));
  for (const outcome of outcomes) {
    if (!outcome.ok) counts.refused += outcome.error.reason === 'unresolved_claim' ? 1 : 0;
    else if (outcome.receipt.status === 'replayed') counts.replayed += 1;
    else counts.ok += 1;
  }
  process.stdout.write(`${JSON.stringify({ wave })}\n`);
}
process.stdout.write(`${JSON.stringify(counts)}\n`);
journal.close();
