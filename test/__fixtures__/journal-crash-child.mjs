// A process that runs one effect-tier call through a registry journaled in
// SQLite. The body writes a marker line, reports, then sleeps: the parent
// kills it there with SIGKILL. Run again, it prints what the journal decided.
import { appendFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { createToolRegistry, defineTool } from 'toolgate';
import { createSqliteJournal } from 'toolgate/sqlite';

const [dbPath, markerPath] = process.argv.slice(2);
let unresolvedAtOpen = 0;
const journal = createSqliteJournal(dbPath, { onUnresolved: (claims) => (unresolvedAtOpen = claims.length) });
process.stdout.write(`${JSON.stringify({ unresolvedAtOpen })}\n`);

const slowWrite = defineTool({
  name: 'slow_write',
  description: 'Append a line to the marker file, then take a long time.',
  input: { type: 'object', properties: { line: { type: 'string' } }, required: ['line'], additionalProperties: false },
  journal: 'effect',
  dispatch: async (args) => {
    appendFileSync(markerPath, `${args.line}\n`);
    process.stdout.write(`${JSON.stringify({ bodyStarted: true })}\n`);
    await sleep(60_000);
    return { written: true };
  },
});
const registry = createToolRegistry({ tools: [slowWrite], journal });
const outcome = await registry.dispatch({ callId: 'call-1', name: 'slow_write', arguments: { line: 'effect' } }, { grantedTools: ['slow_write'], runId: 'run-crash' });
process.stdout.write(`${JSON.stringify({ ok: outcome.ok, code: outcome.ok ? 'OK' : outcome.error.code, reason: outcome.ok ? undefined : outcome.error.reason })}\n`);
journal.close();
