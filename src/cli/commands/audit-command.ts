import { createPublicKey } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname, userInfo } from 'node:os';
import { ToolgateError, type ClaimResolution, type UnresolvedClaim } from '../../core/internal.js';
import { anchorPathFor, createJournalAudit, type AuditEntry, type AuditFilter, type SqliteJournal } from '../../journal/sqlite/index.js';
import { CliError } from '../cli-error.js';
import { formatTable, type CliOutput } from '../cli-output.js';
import type { ResolvedConfig } from '../config/config-types.js';
import { keyFileOf, openJournalToRead } from '../runtime/open-journal-to-read.js';
import { vouchSigningKey } from '../runtime/vouch-signing-key.js';
import { openVouchedJournal, refuseUnvouchedJournal } from '../runtime/vouch-journal.js';
import { terminalJson, terminalLine } from '../terminal-text.js';
import { isProcessAlive } from '../../node/process/is-process-alive.js';

function openAudit(config: ResolvedConfig): ReturnType<typeof createJournalAudit> {
  if (!existsSync(config.journal.path)) throw new CliError('usage', `No journal at ${config.journal.path} yet: it is created by the first governed call.`);
  // The author's rows of a journal a workspace arrived with are not this user's history.
  refuseUnvouchedJournal(config);
  return createJournalAudit(config.journal.path);
}

function receiptRow(entry: AuditEntry): string[] {
  const receipt = entry.receipt;
  return [new Date(receipt.startedAt).toISOString(), receipt.tool, receipt.agent ?? '—', receipt.status, receipt.code, `${receipt.durationMs} ms`, entry.runId ?? '—', receipt.invocationId].map(terminalLine);
}

const HEADER = ['started', 'tool', 'agent', 'status', 'code', 'duration', 'run', 'invocation'];

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
  // One field a line: a line break or a carriage return in a row's text would forge the fields after it.
  const receipt = entry.receipt;
  const field = terminalLine;
  return [
    `invocation   ${field(receipt.invocationId)}`,
    `tool         ${field(receipt.tool)}${receipt.version === undefined ? '' : `@${field(receipt.version)}`}`,
    `agent        ${field(receipt.agent ?? '—')}`,
    `run          ${field(entry.runId ?? '— (refused before it ran)')}`,
    `status       ${receipt.status} (${receipt.code})`,
    `started      ${new Date(receipt.startedAt).toISOString()}, ${receipt.durationMs} ms`,
    `risk / tier  ${receipt.risk} / ${receipt.tier}`,
    `decision     ${receipt.policy.decision} (policy v${String(receipt.policy.version)}) ${receipt.policy.rules.map((rule) => `${rule.decision}:${field(rule.id)}`).join(' ')}`,
    `approval     ${receipt.approval.outcome}${receipt.approval.how === undefined ? '' : ` via ${field(receipt.approval.how)}`}`,
    `digests      input ${receipt.inputDigest ?? '—'}`,
    `             action ${receipt.actionDigest ?? '—'}`,
    `chain        ${entry.chain.table} #${entry.chain.position} ${entry.chain.hash}`,
    `arguments    ${terminalJson(receipt.arguments)}`,
    `summary      ${field(receipt.outputSummary)}`,
  ].join('\n');
}

/**
 * Throw unless the journal's signing key is there and readable: verify checks
 * every signature and seal with it (and requires one on every receipt), and
 * the commands that sign use it; a missing key is an error, never a fresh key
 * that would sign nothing old.
 */
function requireSigningKey(journalPath: string): void {
  const keyFile = keyFileOf(journalPath);
  try {
    createPublicKey(readFileSync(keyFile));
  } catch {
    throw new CliError('config', `journal.sign is on, but the signing key ${keyFile} cannot be read: the signatures cannot be checked.`);
  }
}

/** Whether the process that held a claim still runs: only a process on this host can be asked. */
export type HolderState = 'running' | 'gone' | 'other-host' | 'unknown';

export type ListedClaim = UnresolvedClaim & { readonly holderState: HolderState };

function holderState(holder: string | undefined): HolderState {
  const match = holder === undefined ? null : /^pid (\d+) on (.+)$/.exec(holder);
  if (match === null) return 'unknown';
  if (match[2] !== hostname()) return 'other-host';
  const pid = Number(match[1]);
  if (!Number.isSafeInteger(pid) || pid <= 0) return 'unknown';
  return isProcessAlive(pid) ? 'running' : 'gone';
}

/** The claims a crash (or a process still running) left open, each with whether its holder still runs. */
async function listClaims(journal: SqliteJournal): Promise<ListedClaim[]> {
  return (await journal.unresolved()).map((claim) => ({ ...claim, holderState: holderState(claim.holder) }));
}

/** Where the claimed call acted, in one line: the real paths, the command, the request or the MCP tool. */
function targetLine(claim: UnresolvedClaim): string {
  const target = claim.target;
  if (target === undefined) return '—';
  const parts = [
    ...target.files.map((file) => file.path),
    ...(target.command === undefined ? [] : [target.command.argv.join(' ')]),
    ...(target.http === undefined ? [] : [`${target.http.method} ${target.http.url}`]),
    ...(target.mcp === undefined ? [] : [`${target.mcp.server}/${target.mcp.tool ?? '*'} ${target.mcp.arguments.replace(/\s+/g, ' ')}`]),
    ...(target.os === undefined ? [] : [target.os.action]),
  ];
  const line = parts.join(' · ');
  return line.length > 100 ? `${line.slice(0, 99)}…` : line;
}

const HOLDER_TEXT: Record<HolderState, string> = { running: 'still running', gone: 'gone', 'other-host': 'on another host', unknown: 'unknown' };

/** `toolgate audit unresolved`: calls that claimed their effect and never settled, oldest first. */
export async function runAuditUnresolved(config: ResolvedConfig, output: CliOutput): Promise<void> {
  if (!existsSync(config.journal.path)) throw new CliError('usage', `No journal at ${config.journal.path} yet.`);
  // With the key, the list can say when the rows it reads end on one the key did not sign (a claim may be hidden).
  const journal = openJournalToRead(config);
  try {
    const headProblem = journal.headProblem();
    if (headProblem !== undefined) output.info(`warning: ${headProblem} A row written without the key can hide a claim from this list: run toolgate audit verify before you resolve one.`);
    const claims = await listClaims(journal);
    output.result(claims, () =>
      claims.length === 0
        ? 'no unresolved claims'
        : [
            formatTable(
              ['claim', 'tool', 'call', 'agent', 'started', 'holder', 'target'],
              claims.map((claim) => [claim.claimId, claim.toolName, claim.callId, claim.agent ?? '—', new Date(claim.startedAt).toISOString(), `${claim.holder ?? '—'} (${HOLDER_TEXT[claim.holderState]})`, targetLine(claim)]),
            ),
            '',
            'Each was started and never settled: it may or may not have had its effect, and the same action is refused until you decide.',
            'Check, then: toolgate audit resolve <claim> --as failed (it did not happen; the action may run again) or --as done (it happened).',
          ].join('\n'),
    );
  } finally {
    journal.close();
  }
}

/** `toolgate audit resolve <claim> --as failed|done [--note TEXT] [--force]`: an operator's answer, journaled. */
export async function runAuditResolve(config: ResolvedConfig, claimId: string, options: { readonly as: string; readonly note?: string; readonly force?: boolean }, output: CliOutput): Promise<void> {
  if (options.as !== 'failed' && options.as !== 'done') throw new CliError('usage', '--as must be failed (the effect did not happen) or done (it happened).');
  const resolution: ClaimResolution = options.as;
  if (!existsSync(config.journal.path)) throw new CliError('usage', `No journal at ${config.journal.path} yet.`);
  // The answer is a chained row, signed like every other: with signing on, the key must be there already, never made now.
  if (config.journal.sign) requireSigningKey(config.journal.path);
  // Never with a key the repository shipped: rows its author could forge.
  const vouchOpenedKey = vouchSigningKey(config);
  const journal = openVouchedJournal(config, { onUnresolved: () => undefined, sign: config.journal.sign, anchor: anchorPathFor(config.journal.path) });
  try {
    vouchOpenedKey(journal);
    const claim = (await listClaims(journal)).find((candidate) => candidate.claimId === claimId);
    if (claim === undefined) throw new CliError('usage', `No unresolved claim ${claimId} in ${config.journal.path}: see \`toolgate audit unresolved\`.`);
    if (claim.holderState === 'running' && options.force !== true) {
      throw new CliError('tool', `Claim ${claimId} is held by ${claim.holder ?? 'a process'}, which is still running: the call may still be in flight. Stop that process first, or pass --force if that pid now belongs to another process.`);
    }
    await journal.resolveClaim(claimId, { resolution, by: `${operatorName()} (toolgate audit resolve)`, ...(options.note === undefined ? {} : { note: options.note }) });
    output.result({ resolved: claimId, as: resolution, tool: claim.toolName, callId: claim.callId }, () =>
      `resolved claim ${claimId} (${claim.toolName}, call ${claim.callId}) as ${resolution}: journaled; ${resolution === 'failed' ? 'the action may run again' : 'recorded as done'}, and it is no longer refused.`,
    );
  } catch (error) {
    if (error instanceof ToolgateError && error.code === 'CONFIGURATION_INVALID') throw new CliError('usage', error.message, { cause: error });
    throw error;
  } finally {
    journal.close();
  }
}

/**
 * `toolgate audit sign-tail [--yes --head HASH]`: sign over the unsigned rows
 * a signed journal ends on, which it refuses to link onto (written while
 * signing was off, or by an open that made the key and stopped before it
 * signed the history over). Without `--yes` it only names them, and the
 * hash of the row they end on: signing them over vouches for them under
 * the key, so an operator checks them first, and `--yes` signs over only
 * the rows that end on the hash they were shown (`--head`), never rows
 * appended or rewritten since.
 */
export async function runAuditSignTail(config: ResolvedConfig, options: { readonly yes?: boolean; readonly head?: string }, output: CliOutput): Promise<void> {
  if (options.yes === true && options.head === undefined) throw new CliError('usage', '--yes signs over the rows you checked: give the hash they end on, as toolgate audit sign-tail printed it (--head HASH).');
  if (options.yes !== true && options.head !== undefined) throw new CliError('usage', '--head goes with --yes: it names the rows to sign over.');
  if (!config.journal.sign) throw new CliError('usage', 'journal.sign is off: there is no key to sign the journal with.');
  if (!existsSync(config.journal.path)) throw new CliError('usage', `No journal at ${config.journal.path} yet.`);
  // Signed with the key already there, never one made now.
  requireSigningKey(config.journal.path);
  const vouchOpenedKey = vouchSigningKey(config);
  const journal = openVouchedJournal(config, { onUnresolved: () => undefined, sign: true, anchor: anchorPathFor(config.journal.path), onAnchorProblem: () => undefined });
  try {
    vouchOpenedKey(journal);
    const tail = journal.unsignedTail();
    if (tail === undefined) {
      const problem = journal.headProblem();
      if (problem !== undefined) throw new CliError('tool', `${problem} Its last row names a key, so it is not a row written without one: it is not signed over.`);
      output.result({ signed: false, unsignedTail: null }, () => 'the journal ends on a row its key signed: nothing to sign over');
      return;
    }
    const rows = `rows #${tail.from}–#${tail.through}`;
    if (options.yes !== true) {
      output.result({ signed: false, unsignedTail: tail }, () =>
        [
          `the journal ends on ${rows}, which no signature covers: written without the key, or by a writer who does not hold it. The last one's hash: ${tail.head}`,
          `Check them (toolgate audit verify names the first; toolgate audit tail shows the receipts), then sign them over under the key: toolgate audit sign-tail --yes --head ${tail.head}`,
        ].join('\n'),
      );
      return;
    }
    const signed = await journal.signOverUnsignedTail(`${operatorName()} (toolgate audit sign-tail)`, options.head ?? '');
    output.result({ signed: signed !== undefined, unsignedTail: signed ?? null }, () => (signed === undefined ? 'nothing to sign over' : `signed over ${rows}: the journal links onto them from now on`));
  } catch (error) {
    if (error instanceof ToolgateError && error.code === 'CONFIGURATION_INVALID') throw new CliError('tool', error.message, { cause: error });
    throw error;
  } finally {
    journal.close();
  }
}

function operatorName(): string {
  try {
    return userInfo().username;
  } catch {
    return 'operator';
  }
}

const CSV_COLUMNS = ['invocationId', 'callId', 'tool', 'version', 'agent', 'parent', 'status', 'code', 'startedAt', 'durationMs', 'risk', 'tier', 'inputDigest', 'actionDigest', 'outputSummary'] as const;

/** A cell; on a terminal (`shown`) its control characters written out, as everything the CLI prints there. */
function csvCell(value: string | number | undefined, shown: boolean): string {
  const raw = value === undefined ? '' : String(value);
  const text = shown ? terminalLine(raw) : raw;
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
    const header = format === 'csv' ? [CSV_COLUMNS.join(',')] : [];
    const lines: string[] = [...header];
    // A file or a pipe gets the cells as they are, for a spreadsheet; a terminal is read by a person, and obeys escapes.
    const shown = out === undefined && process.stdout.isTTY === true;
    let after = 0;
    for (;;) {
      const page = audit.list({ afterSeq: after, oldestFirst: true, limit: 1000 });
      if (page.length === 0) break;
      for (const entry of page) {
        lines.push(format === 'csv' ? CSV_COLUMNS.map((column) => csvCell(entry.receipt[column], shown)).join(',') : terminalJson({ ...entry.receipt, chain: entry.chain }));
      }
      after = page.at(-1)?.chain.position ?? after;
      progress.tick(lines.length - header.length);
    }
    progress.done(`exported ${lines.length - header.length} receipts`);
    const text = lines.join('\n') + (lines.length > 0 ? '\n' : '');
    if (out === undefined) process.stdout.write(text);
    else writeFileSync(out, text, { mode: 0o600 });
  } finally {
    audit.close();
  }
}
