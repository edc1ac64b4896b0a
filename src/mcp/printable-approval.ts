import { describeApproval, type ToolApprovalRequest } from '../core/internal.js';
import { scanHiddenCharacters } from './scan-hidden-characters.js';

/**
 * An approval as text for a screen someone reads it on (a terminal, an MCP
 * client): `describeApproval`'s lines, and any hidden or control character
 * they still hold removed, with a line that says so. `describeApproval`
 * already writes controls and direction overrides out as `⟨U+XXXX⟩`; this is
 * the upstream-text scan over the whole, for everything else it knows.
 */
export function printableApproval(request: ToolApprovalRequest): string {
  const scan = scanHiddenCharacters(describeApproval(request).join('\n'), true);
  if (scan.count === 0) return scan.text;
  return `${scan.text}\n${scan.count} hidden ${scan.count === 1 ? 'character' : 'characters'} removed from what is shown (${scan.codePoints.join(', ')})`;
}
