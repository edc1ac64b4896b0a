// Append `count` receipts to a shared journal file as fast as possible (signed when a key directory is given).
import { createSqliteJournal } from 'toolgate/sqlite';

const [dbPath, label, countText, keyDir] = process.argv.slice(2);
const count = Number(countText);
const journal = createSqliteJournal(dbPath, { onUnresolved: () => undefined, ...(keyDir === undefined ? {} : { sign: { keyDir } }) });
for (let index = 0; index < count; index += 1) {
  const callId = `${label}-${index}`;
  await journal.settle(undefined, {
    ok: true,
    value: { index },
    content: `ok ${index}`,
    receipt: {
      invocationId: callId, callId, tool: 'append_test', version: undefined, agent: label, parent: undefined, status: 'ok', code: 'OK',
      outputSummary: `ok ${index}`, affectedEntities: [], inputDigest: 'in', actionDigest: `act-${label}`,
      policy: { decision: 'allow', version: 1, rules: [] }, approval: { outcome: 'not-required' },
      effect: 'write', risk: 'low', tier: 'T1', startedAt: Date.now(), durationMs: 0, arguments: { index },
    },
  });
}
journal.close();
process.stdout.write('done\n');
