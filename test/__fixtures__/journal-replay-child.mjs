// A process that runs effect-tier calls through a registry journaled in
// SQLite: `fillers` calls of their own, then each call id given. Each call
// appends its id to the marker file; a call the journal replays appends
// nothing. With `hold` it then stays open, its receipts in memory too,
// until the parent kills it.
import { appendFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { createToolRegistry, defineTool } from 'toolgate';
import { createSqliteJournal } from 'toolgate/sqlite';

const [dbPath, markerPath, callIds, fillers, hold] = process.argv.slice(2);
const journal = createSqliteJournal(dbPath, { onUnresolved: () => undefined });
const bump = defineTool({
  name: 'bump',
  description: 'Append the call id to the marker file.',
  input: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'], additionalProperties: false },
  journal: 'effect',
  dispatch: async (args) => {
    appendFileSync(markerPath, `${args.id}\n`);
    return { bumped: args.id };
  },
});
const registry = createToolRegistry({ tools: [bump], journal });
const call = (callId) => registry.dispatch({ callId, name: 'bump', arguments: { id: callId } }, { grantedTools: ['bump'], runId: 'run-replay' });
for (let index = 0; index < Number(fillers); index += 1) await call(`filler-${process.pid}-${index}`);
for (const callId of callIds.split(',').filter((id) => id.length > 0)) {
  const outcome = await call(callId);
  process.stdout.write(`${JSON.stringify({ callId, ok: outcome.ok, code: outcome.ok ? 'OK' : outcome.error.code })}\n`);
}
process.stdout.write(`${JSON.stringify({ done: true })}\n`);
if (hold === 'hold') await sleep(60_000);
journal.close();
