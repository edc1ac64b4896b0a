import { describe, expect, it } from 'vitest';
import { editFileTool } from './edit-file-tool.js';

describe('edit_file presentCall', () => {
  it('marks every line of the old text - and every line of the new +, and says replaceAll', () => {
    const view = editFileTool.presentCall?.({ path: 'a.ts', oldText: 'let a = 1;\nlet b = 2;', newText: 'const a = 1;\n- let b = 2;', replaceAll: true });
    expect(view?.subtitle).toBe('replaceAll: every occurrence');
    // The new text's own "- let b" line is still marked as new: it cannot pass for a line being removed.
    expect(view?.body).toBe('- let a = 1;\n- let b = 2;\n+ const a = 1;\n+ - let b = 2;');
    // Said to be a diff: a card draws it as one, and only such a view (a whole write's lines are drawn as they are).
    expect(view?.language).toBe('diff');
    expect(editFileTool.presentCall?.({ path: 'a.ts', oldText: 'x', newText: '' })).toMatchObject({ subtitle: 'replaceAll: false (exactly one occurrence)', body: '- x\n+ ' });
  });
});
