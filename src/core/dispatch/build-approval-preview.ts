import { displayAction, quoteArgv, type ActionDisplay } from '../action/display-action.js';
import type { ResolvedAction } from '../action/resolved-action.js';
import type { ToolActionClass, ToolActionPreview } from '../policy/approval-types.js';
import { clipProjection, DEFAULT_PROJECTION_LIMITS, projectArguments, type ProjectionLimits } from '../receipts/project-arguments.js';

export interface ApprovalPreviews {
  readonly preview: ToolActionPreview;
  readonly target: ActionDisplay | undefined;
}

/** The summary line's limits: short enough for a card. */
const SUMMARY_LIMITS: ProjectionLimits = { maxString: 120, maxEntries: 16, maxDepth: 3 };

/** How the call's arguments were projected for display, when the caller has that projection. */
export interface ShownArguments {
  /** The call's display projection, made with the default limits. */
  readonly shown?: unknown;
  /** The top-level arguments it masked whole (`projectArguments`'s `secretKeys`). */
  readonly secretKeys?: ReadonlySet<string> | undefined;
}

/**
 * What an approver reads, built from the resolved action and nothing else:
 * the real path, the whole argv, method and URL, the MCP server. Masking
 * happens once, in `displayAction`, token by token; no decision reads any
 * of this (they read the resolved action itself). With the call's display
 * projection (`shown`), the summary is that projection cut to the card's
 * limits, and the arguments are neither walked nor redacted a second time;
 * where it cannot be cut, the arguments are projected again, masking the
 * same secret arguments.
 */
export function buildApprovalPreview(action: ToolActionClass | undefined, resolved: ResolvedAction | undefined, args: unknown, { shown, secretKeys }: ShownArguments = {}): ApprovalPreviews {
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
    const clipped = shown === undefined ? undefined : clipProjection(shown, DEFAULT_PROJECTION_LIMITS, SUMMARY_LIMITS);
    preview.summary = JSON.stringify(clipped === undefined ? projectArguments(args, { ...SUMMARY_LIMITS, secretKeys }) : clipped.value);
  }
  return { preview: Object.freeze(preview), target };
}
