import { describe, expect, it } from 'vitest';
import { approvalRequest } from '../core/policy/__fixtures__/approval-request.js';
import { printableApproval } from './printable-approval.js';

describe('printableApproval', () => {
  it('leaves nothing a terminal would obey or hide: controls and invisible characters are written out, the rest removed and counted', () => {
    const text = printableApproval(
      approvalRequest({
        toolName: 'write_file',
        // Tag characters read as nothing on screen (a model can read them); the escape sequence would clear the line; half a surrogate pair is no text at all.
        agent: 'coder\u{E0041}\u{E0042}\uD800',
        action: 'fs_write',
        target: { path: 'notes.md\u001b[2K\rapproved.md' },
      }),
    );
    expect(text).toContain('Writes: notes.md⟨U+001B⟩[2K⟨U+000D⟩approved.md');
    expect(text).toContain('Tool: write_file (fs_write) · agent coder⟨U+E0041⟩⟨U+E0042⟩\n');
    expect(text.split('\n').at(-1)).toBe('1 hidden character removed from what is shown (U+D800)');
    // eslint-disable-next-line no-control-regex -- proving they are gone is the point
    expect(text).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f]/);
  });

  it('says nothing more when there was nothing to remove', () => {
    const text = printableApproval(approvalRequest({ toolName: 'write_file', action: 'fs_write', target: { path: 'notes.md' } }));
    expect(text).not.toContain('hidden');
    expect(text.split('\n')[0]).toBe('Tool: write_file (fs_write) · agent —');
  });
});
