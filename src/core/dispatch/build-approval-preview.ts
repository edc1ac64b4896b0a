import { displayAction, quoteArgv, type ActionDisplay } from '../action/display-action.js';
import type { ResolvedAction } from '../action/resolved-action.js';
import type { ToolActionClass, ToolActionPreview } from '../policy/approval-types.js';
import { projectArguments } from '../receipts/project-arguments.js';

export interface ApprovalPreviews {
  readonly preview: ToolActionPreview;
  readonly target: ActionDisplay | undefined;
}

/** The summary line's limits: short enough for a card. */
const SUMMARY_LIMITS = { maxString: 120, maxEntries: 16, maxDepth: 3 } as const;

/**
 * What an approver reads, built from the resolved action and nothing else:
 * the real path, the whole argv, method and URL, the MCP server. Masking
 * happens once, in `displayAction`, token by token; no decision reads any
 * of this (they read the resolved action itself). `shown` is the call's
 * display projection and its JSON text, when the caller has them: a
 * projection that already fits the summary's limits is the summary, and
 * the arguments are not redacted a second time.
 */
export function buildApprovalPreview(action: ToolActionClass | undefined, resolved: ResolvedAction | undefined, args: unknown, shown?: { readonly value: unknown; readonly json: string }): ApprovalPreviews {
  const target = resolved === undefined ? undefined : displayAction(resolved);
  const preview: { -readonly [K in keyof ToolActionPreview]: ToolActionPreview[K] } = {};
  const file = target?.files[0];
  if (file !== undefined) preview.path = file.path;
  if (target?.command !== undefined) preview.command = quoteArgv(target.command.argv);
  if (target?.http !== undefined) {
    preview.host = target.http.host;
    preview.request = `${target.http.method} ${target.http.url}`;
  }
  if (target?.mcp !== undefined && preview.host === undefined) preview.host = target.mcp.server;
  if (action === undefined || (preview.path === undefined && preview.command === undefined && preview.host === undefined)) {
    preview.summary = shown !== undefined && withinSummaryLimits(shown.value, 0) ? shown.json : JSON.stringify(projectArguments(args, SUMMARY_LIMITS));
  }
  return { preview: Object.freeze(preview), target };
}

/**
 * Whether projecting with the summary's limits would change nothing in a
 * projection: no string longer, no container fuller and nothing deeper than
 * they allow (redaction is already done; it does not depend on the limits).
 */
function withinSummaryLimits(value: unknown, depth: number): boolean {
  if (typeof value === 'string') return value.length <= SUMMARY_LIMITS.maxString;
  if (typeof value !== 'object' || value === null) return true;
  if (depth >= SUMMARY_LIMITS.maxDepth) return false;
  const entries = Array.isArray(value) ? (value as readonly unknown[]) : Object.values(value);
  if (entries.length > SUMMARY_LIMITS.maxEntries) return false;
  for (const entry of entries) if (!withinSummaryLimits(entry, depth + 1)) return false;
  return true;
}
