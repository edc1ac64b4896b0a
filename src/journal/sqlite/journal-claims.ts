import { ConfigurationError, ToolPolicyError, type ClaimResolution, type JournalPrepareInput, type UnresolvedClaim } from '../../core/internal.js';
import type { ChainRow } from './chain-rows.js';
import type { ChainStore } from './chain-store.js';
import type { OpenClaim } from './open-claims.js';

/** A `claims` row as the journal reads it. */
export interface ClaimRow {
  readonly seq: number;
  readonly at: number;
  readonly claim_id: string;
  readonly key: string;
  readonly state: string;
  readonly body: string;
}

/**
 * An open claim's row to list or name, as the file holds it (`row`). With a
 * signer, a row deleted or changed since the walk handed it over (the
 * operator would not see the claim, or would see another call than the one
 * that may have run) stops the journal, and the claim is listed with what
 * the walk told the mirror alone (`mirroredClaimRow`). Undefined for a row
 * a compaction dropped.
 */
export function listedClaimRow(store: ChainStore, claim: OpenClaim, row: (ClaimRow & ChainRow) | undefined): ClaimRow | undefined {
  if (store.signer === undefined) return row;
  const intact = row === undefined ? store.rowDropped('claims', claim.seq) : store.rowIntact('claims', row);
  return intact ? row : mirroredClaimRow(claim);
}

/** An open claim as the mirror holds it, for a row the file no longer holds as it was: its key and claim id alone. */
export function mirroredClaimRow(claim: OpenClaim): ClaimRow {
  return { ...claim, at: 0, state: 'claimed', body: '{}' };
}

/** The JSON body of a claim row. */
export interface ClaimBody {
  readonly callId: string;
  readonly runId?: string;
  readonly tool: string;
  readonly agent?: string;
  readonly actionDigest?: string;
  readonly arguments?: unknown;
  readonly target?: UnresolvedClaim['target'];
  readonly startedAt: number;
  readonly holder?: string;
}

/** The body of the claim row an effect-tier call appends before its effect: what an operator reads of it after a crash. */
export function claimBodyOf(input: JournalPrepareInput, holder: string): Record<string, unknown> {
  return {
    callId: input.callId,
    runId: input.runId,
    tool: input.toolName,
    toolVersion: input.toolVersion,
    agent: input.agent,
    actionDigest: input.actionDigest,
    inputDigest: input.inputDigest,
    arguments: input.arguments,
    ...(input.target === undefined ? {} : { target: input.target }),
    startedAt: input.startedAt,
    holder,
  };
}

/** The refusal, naming the claim an operator resolves and when it started: never the arguments. */
export function unresolvedClaimError(toolName: string, claim: ClaimRow): ToolPolicyError {
  const startedAt = (JSON.parse(claim.body) as Partial<ClaimBody>).startedAt;
  const since = typeof startedAt === 'number' && Number.isFinite(startedAt) ? `, started ${new Date(startedAt).toISOString()}` : '';
  return new ToolPolicyError(toolName, 'unresolved_claim', {
    detail: `was refused: an earlier dispatch of the same action (journal claim ${claim.claim_id}${since}) may have started and never settled; it is not run again until an operator resolves that claim`,
  });
}

/** An open claim of this action that this instance does not hold (a crash left it, or another process runs it). */
export function openClaimOfAction(open: ReadonlyMap<string, OpenClaim>, actionDigest: string, held: (claim: OpenClaim) => boolean): OpenClaim | undefined {
  // Keys are `actionDigest:callId`.
  const prefix = `${actionDigest}:`;
  for (const claim of open.values()) if (claim.key.startsWith(prefix) && !held(claim)) return claim;
  return undefined;
}

/** How an operator resolves a claim a crash left behind. */
export interface ResolveClaimOptions {
  /**
   * `failed`: the effect did not happen (or may safely happen again).
   * `done`: it happened. Either way a `released` row records the answer
   * (chained, signed when signing is on) and the action runs again when
   * next called: a new call, not a retry of the lost one.
   */
  readonly resolution: ClaimResolution;
  /** Who decided, for the audit trail. */
  readonly by: string;
  readonly note?: string;
}

/** An open claim's row as the operator's list shows it: what the claim body recorded, never more. */
export function unresolvedClaimOf(row: ClaimRow): UnresolvedClaim {
  const body = JSON.parse(row.body) as ClaimBody;
  return {
    key: row.key,
    claimId: row.claim_id,
    toolName: body.tool,
    callId: body.callId,
    runId: body.runId,
    startedAt: body.startedAt,
    ...(body.holder === undefined ? {} : { holder: body.holder }),
    ...(body.agent === undefined ? {} : { agent: body.agent }),
    ...(body.actionDigest === undefined ? {} : { actionDigest: body.actionDigest }),
    ...(body.arguments === undefined ? {} : { arguments: body.arguments }),
    ...(body.target === undefined ? {} : { target: body.target }),
  };
}

/** An operator's answer as `resolveClaim` takes it, checked before anything is written. */
export function checkResolveClaimOptions(options: ResolveClaimOptions): void {
  if (options.resolution !== 'failed' && options.resolution !== 'done') throw new ConfigurationError('resolution', 'must be "failed" or "done"');
  if (typeof options.by !== 'string' || options.by.length === 0) throw new ConfigurationError('by', 'must name who resolved the claim');
  if (options.note !== undefined && (typeof options.note !== 'string' || options.note.length > 1000)) throw new ConfigurationError('note', 'must be text of at most 1000 characters');
}
