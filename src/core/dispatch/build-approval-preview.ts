import type { ToolActionClass, ToolActionPreview } from '../policy/approval-types.js';
import { redactSecrets } from '../policy/redact-secrets.js';
import { projectArguments } from '../receipts/project-arguments.js';
import type { PolicyTarget } from '../tools/tool-types.js';

export interface ApprovalPreviews {
  readonly preview: ToolActionPreview;
  readonly unredactedPreview: ToolActionPreview;
}

/**
 * The preview an approver sees: for a write the path, for a process the
 * command, for egress the host only (never the full URL, whose query is
 * where a credential lives). Each field is scrubbed whole; the unscrubbed
 * twin is for in-process classification only.
 */
export function buildApprovalPreview(action: ToolActionClass | undefined, target: PolicyTarget | undefined, args: unknown): ApprovalPreviews {
  const raw: { path?: string; command?: string; host?: string; summary?: string } = {};
  if (target?.path !== undefined) raw.path = target.path;
  if (target?.command !== undefined) raw.command = typeof target.command === 'string' ? target.command : target.command.join(' ');
  if (target?.url !== undefined) raw.host = hostOf(target.url);
  if (target?.server !== undefined && raw.host === undefined) raw.host = target.server;
  if (action === undefined || (raw.path === undefined && raw.command === undefined && raw.host === undefined)) {
    raw.summary = JSON.stringify(projectArguments(args, { maxString: 120, maxEntries: 16, maxDepth: 3 }));
  }
  const preview: { path?: string; command?: string; host?: string; summary?: string } = {};
  for (const key of Object.keys(raw) as (keyof typeof raw)[]) {
    const value = raw[key];
    if (value !== undefined) preview[key] = redactSecrets(value);
  }
  return { preview: Object.freeze(preview), unredactedPreview: Object.freeze(raw) };
}

function hostOf(url: string): string {
  try {
    return new URL(url).hostname;
  } catch {
    return '(unparseable URL)';
  }
}
