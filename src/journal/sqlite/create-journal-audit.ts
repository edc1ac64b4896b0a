import Database from 'better-sqlite3';
import { recordableAttachment, type JournalVerifyResult, type MediaHandle, type ToolReceipt } from '../../core/internal.js';

export interface AuditFilter {
  readonly tool?: string;
  readonly status?: string;
  readonly agent?: string;
  /** Only the receipts of this run (`toolgate replay` takes the same id). */
  readonly runId?: string;
  /** Epoch ms: receipts started at or after. */
  readonly since?: number;
  /** Only rows after this chain position (for `audit tail --follow`). */
  readonly afterSeq?: number;
  /** Only rows before this chain position (the console's next page, newest first). */
  readonly beforeSeq?: number;
  /** Text the tool, agent, code, ids, summary, resolved target or arguments contain (case-insensitive). */
  readonly search?: string;
  /** Newest first unless `oldestFirst`. Default 200. */
  readonly limit?: number;
  readonly oldestFirst?: boolean;
}

/** A receipt with its place in the hash chain. */
export interface AuditEntry {
  readonly receipt: ToolReceipt;
  readonly chain: { readonly position: number; readonly hash: string; readonly table: 'receipts' | 'events' };
  /** The run the call was recorded under; undefined for a call refused before it ran (journaled as an event, not a recording). */
  readonly runId: string | undefined;
}

export interface JournalAudit {
  list(filter?: AuditFilter): AuditEntry[];
  get(invocationId: string): AuditEntry | undefined;
  /** The attachment a settled receipt lists under `handle` (the newest such receipt's), or undefined when none does. */
  attachment(handle: string): MediaHandle | undefined;
  /** How many receipts the journal holds (settled and refused). */
  count(): number;
  /**
   * How many claims are open: the latest claim row of their key still
   * `claimed`, and no receipt naming them (as `OpenClaims` reads them), for a
   * reader that does not open the journal to write.
   */
  openClaims(): number;
  close(): void;
}

interface Row {
  readonly seq: number;
  readonly hash: string;
  readonly origin: 'receipts' | 'events';
  readonly receipt: string;
  readonly run_id: string | null;
}

/**
 * A read-only view of a journal file for the audit trail: settled receipts
 * and refused calls, with their chain positions, filtered and paged in SQL.
 * It opens its own read-only connection, so an auditor never holds a writer.
 */
export function createJournalAudit(path: string): JournalAudit {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  const union = `
    SELECT seq, hash, 'receipts' AS origin, json_extract(body, '$.receipt') AS receipt, run_id FROM receipts
    UNION ALL
    SELECT seq, hash, 'events' AS origin, json_extract(body, '$') AS receipt, NULL AS run_id FROM events WHERE type = 'call-refused'`;
  // The fields a person searches by; the receipt is already redacted, so nothing masked can be found by guessing it.
  const searched = ['tool', 'agent', 'code', 'callId', 'invocationId', 'outputSummary', 'target', 'arguments'].map((field) => `json_extract(receipt, '$.${field}')`).join(', ');
  const where = `
    WHERE (@tool IS NULL OR json_extract(receipt, '$.tool') = @tool)
      AND (@status IS NULL OR json_extract(receipt, '$.status') = @status)
      AND (@agent IS NULL OR json_extract(receipt, '$.agent') = @agent)
      AND (@since IS NULL OR json_extract(receipt, '$.startedAt') >= @since)
      AND (@afterSeq IS NULL OR seq > @afterSeq)
      AND (@beforeSeq IS NULL OR seq < @beforeSeq)
      AND (@runId IS NULL OR run_id = @runId)
      AND (@search IS NULL OR instr(lower(concat_ws(' ', ${searched})), lower(@search)) > 0)`;
  const newest = db.prepare<Record<string, unknown>, Row>(`SELECT * FROM (${union}) ${where} ORDER BY seq DESC LIMIT @limit`);
  const oldest = db.prepare<Record<string, unknown>, Row>(`SELECT * FROM (${union}) ${where} ORDER BY seq ASC LIMIT @limit`);
  const byId = db.prepare<[string], Row>(`SELECT * FROM (${union}) WHERE json_extract(receipt, '$.invocationId') = ? LIMIT 1`);
  // A scan of the receipts: `instr` skips a row without the handle before its JSON is parsed, so a lookup stays in the milliseconds for a journal of many thousand calls.
  const listed = db.prepare<{ handle: string }, { attachment: string }>(`
    SELECT listed.value AS attachment FROM receipts, json_each(receipts.body, '$.receipt.attachments') AS listed
    WHERE instr(receipts.body, @handle) > 0 AND json_extract(listed.value, '$.handle') = @handle
    ORDER BY receipts.seq DESC LIMIT 1`);
  const open = db.prepare<[], { n: number }>(`
    WITH latest AS (SELECT max(seq) AS seq FROM claims GROUP BY key)
    SELECT count(*) AS n FROM latest JOIN claims ON claims.seq = latest.seq
    WHERE claims.state = 'claimed' AND claims.claim_id NOT IN (SELECT claim_id FROM receipts WHERE claim_id IS NOT NULL)`);
  const total = db.prepare<[], { n: number }>(`SELECT (SELECT count(*) FROM receipts) + (SELECT count(*) FROM events WHERE type = 'call-refused') AS n`);

  const toEntry = (row: Row): AuditEntry => ({ receipt: JSON.parse(row.receipt) as ToolReceipt, chain: { position: row.seq, hash: row.hash, table: row.origin }, runId: row.run_id ?? undefined });
  return {
    list(filter = {}) {
      const parameters = {
        tool: filter.tool ?? null,
        status: filter.status ?? null,
        agent: filter.agent ?? null,
        since: filter.since ?? null,
        afterSeq: filter.afterSeq ?? null,
        beforeSeq: filter.beforeSeq ?? null,
        runId: filter.runId ?? null,
        search: filter.search === undefined || filter.search === '' ? null : filter.search,
        limit: Math.max(1, Math.min(filter.limit ?? 200, 100_000)),
      };
      return (filter.oldestFirst === true ? oldest : newest).all(parameters).map(toEntry);
    },
    get(invocationId) {
      const row = byId.get(invocationId);
      return row === undefined ? undefined : toEntry(row);
    },
    attachment(handle) {
      const row = listed.get({ handle });
      // Only what a journal could have recorded: a content-addressed handle, a plain type, a size.
      return row === undefined ? undefined : recordableAttachment(JSON.parse(row.attachment));
    },
    count: () => total.get()?.n ?? 0,
    openClaims: () => open.get()?.n ?? 0,
    close: () => db.close(),
  };
}

/** Render a verification result as one line for people. */
export function describeVerification(result: JournalVerifyResult): string {
  if (result.ok) return `chain verified: ${result.rows} rows`;
  const bad = result.firstBadRow;
  if (bad?.table === 'anchor') return `journal does not match its anchor: ${bad.problem}`;
  return bad === undefined ? 'chain broken' : `chain broken at ${bad.table} #${bad.id}: ${bad.problem}`;
}
