import { createPublicKey } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { ReceiptStatus } from '../../core/index.js';
import { createJournalAudit, createSqliteJournal, describeVerification, type AuditEntry, type AuditFilter } from '../../journal/sqlite/index.js';
import { SIGNING_KEY_FILE } from '../../journal/sqlite/receipt-signer.js';
import { CliError } from '../cli-error.js';
import { formatTable, type CliOutput } from '../cli-output.js';
import type { ResolvedConfig } from '../config/config-types.js';

function openAudit(config: ResolvedConfig): ReturnType<typeof createJournalAudit> {
  if (!existsSync(config.journal.path)) throw new CliError('usage', `No journal at ${config.journal.path} yet: it is created by the first governed call.`);
  return createJournalAudit(config.journal.path);
}

function receiptRow(entry: AuditEntry): string[] {
  const receipt = entry.receipt;
  return [new Date(receipt.startedAt).toISOString(), receipt.tool, receipt.agent ?? '—', receipt.status, receipt.code, `${receipt.durationMs} ms`, entry.runId ?? '—', receipt.invocationId];
}

const HEADER = ['started', 'tool', 'agent', 'status', 'code', 'duration', 'run', 'invocation'];

/** The statuses a receipt can have, so `--status` refuses a value that could never match. */
export const RECEIPT_STATUSES = ['ok', 'error', 'denied', 'cancelled', 'replayed'] as const satisfies readonly ReceiptStatus[];

/** `toolgate audit tail [-n N] [--follow]`: the newest receipts, oldest first; with --follow, new ones as they land. */
export async function runAuditTail(config: ResolvedConfig, options: { lines: number; follow: boolean; filter: AuditFilter }, output: CliOutput, signal?: AbortSignal): Promise<void> {
  const audit = openAudit(config);
  try {
    const entries = audit.list({ ...options.filter, limit: options.lines }).reverse();
    output.result(entries, () => (entries.length === 0 ? (Object.keys(options.filter).length === 0 ? 'no receipts yet' : 'no receipts match') : formatTable(HEADER, entries.map((entry) => receiptRow(entry)))));
    if (!options.follow) return;
    let after = entries.at(-1)?.chain.position ?? 0;
    while (signal?.aborted !== true) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      for (const entry of audit.list({ ...options.filter, afterSeq: after, oldestFirst: true, limit: 1000 })) {
        after = entry.chain.position;
        output.result(entry, () => receiptRow(entry).join('  '));
      }
    }
  } finally {
    audit.close();
  }
}

/** `toolgate audit show <id>`: one receipt, with its chain position. */
export function runAuditShow(config: ResolvedConfig, invocationId: string, output: CliOutput): void {
  const audit = openAudit(config);
  try {
    const entry = audit.get(invocationId);
    if (entry === undefined) throw new CliError('usage', `No receipt ${invocationId} in ${config.journal.path}.`);
    output.result(entry, () => renderEntry(entry));
  } finally {
    audit.close();
  }
}

function renderEntry(entry: AuditEntry): string {
  const receipt = entry.receipt;
  return [
    `invocation   ${receipt.invocationId}`,
    `tool         ${receipt.tool}${receipt.version === undefined ? '' : `@${receipt.version}`}`,
    `agent        ${receipt.agent ?? '—'}`,
    `run          ${entry.runId ?? '— (refused before it ran)'}`,
    `status       ${receipt.status} (${receipt.code})`,
    `started      ${new Date(receipt.startedAt).toISOString()}, ${receipt.durationMs} ms`,
    `risk / tier  ${receipt.risk} / ${receipt.tier}`,
    `decision     ${receipt.policy.decision} (policy v${String(receipt.policy.version)}) ${receipt.policy.rules.map((rule) => `${rule.decision}:${rule.id}`).join(' ')}`,
    `approval     ${receipt.approval.outcome}${receipt.approval.how === undefined ? '' : ` via ${receipt.approval.how}`}`,
    `digests      input ${receipt.inputDigest ?? '—'}`,
    `             action ${receipt.actionDigest ?? '—'}`,
    `chain        ${entry.chain.table} #${entry.chain.position} ${entry.chain.hash}`,
    `arguments    ${JSON.stringify(receipt.arguments)}`,
    `summary      ${receipt.outputSummary}`,
  ].join('\n');
}

/** `toolgate audit verify`: walk the hash chain (and signatures); a broken chain exits non-zero naming the first bad row. */
/**
 * The public half of the journal's signing key, so verify checks every
 * signature (and requires one on every receipt) without ever creating a key:
 * a missing key is an error, never a fresh key that would sign nothing old.
 */
function signingPublicKey(journalPath: string): string {
  const keyFile = join(dirname(journalPath), 'keys', SIGNING_KEY_FILE);
  try {
    return createPublicKey(readFileSync(keyFile)).export({ type: 'spki', format: 'pem' }).toString();
  } catch {
    throw new CliError('config', `journal.sign is on, but the signing key ${keyFile} cannot be read: the signatures cannot be checked.`);
  }
}

export async function runAuditVerify(config: ResolvedConfig, output: CliOutput): Promise<number> {
  if (!existsSync(config.journal.path)) throw new CliError('usage', `No journal at ${config.journal.path} yet.`);
  const progress = output.progress('verifying the journal chain');
  const publicKey = config.journal.sign ? signingPublicKey(config.journal.path) : undefined;
  const journal = createSqliteJournal(config.journal.path, { onUnresolved: () => undefined, ...(publicKey === undefined ? {} : { publicKey }) });
  try {
    const result = await journal.verify();
    progress.done();
    const unresolved = await journal.unresolved();
    output.result({ ...result, unresolved }, () =>
      [describeVerification(result), ...unresolved.map((claim) => `unresolved claim ${claim.claimId}: ${claim.toolName} (call ${claim.callId}) since ${new Date(claim.startedAt).toISOString()}`)].join('\n'),
    );
    return result.ok ? 0 : 1;
  } finally {
    journal.close();
  }
}

const CSV_COLUMNS = ['invocationId', 'callId', 'tool', 'version', 'agent', 'parent', 'status', 'code', 'startedAt', 'durationMs', 'risk', 'tier', 'inputDigest', 'actionDigest', 'outputSummary'] as const;

function csvCell(value: string | number | undefined): string {
  const text = value === undefined ? '' : String(value);
  // Quote every cell; a leading formula character is neutralised so a spreadsheet never evaluates it.
  const safe = /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
  return `"${safe.replaceAll('"', '""')}"`;
}

/** `toolgate audit export --format jsonl|csv [--out file]`: every receipt, oldest first. */
export function runAuditExport(config: ResolvedConfig, format: string, out: string | undefined, output: CliOutput): void {
  if (format !== 'jsonl' && format !== 'csv') throw new CliError('usage', '--format must be jsonl or csv.');
  const audit = openAudit(config);
  try {
    const total = audit.count();
    const progress = output.progress('exporting receipts', total);
    const lines: string[] = format === 'csv' ? [CSV_COLUMNS.join(',')] : [];
    let after = 0;
    for (;;) {
      const page = audit.list({ afterSeq: after, oldestFirst: true, limit: 1000 });
      if (page.length === 0) break;
      for (const entry of page) {
        lines.push(format === 'csv' ? CSV_COLUMNS.map((column) => csvCell(entry.receipt[column])).join(',') : JSON.stringify({ ...entry.receipt, chain: entry.chain }));
      }
      after = page.at(-1)?.chain.position ?? after;
      progress.tick(lines.length);
    }
    progress.done(`exported ${format === 'csv' ? lines.length - 1 : lines.length} receipts`);
    const text = lines.join('\n') + (lines.length > 0 ? '\n' : '');
    if (out === undefined) process.stdout.write(text);
    else writeFileSync(out, text, { mode: 0o600 });
  } finally {
    audit.close();
  }
}
