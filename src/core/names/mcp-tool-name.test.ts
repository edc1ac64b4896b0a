import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mcpToolName } from './mcp-tool-name.js';

describe('mcpToolName', () => {
  it('builds mcp_{server}_{tool}, folding what a tool name may not hold', () => {
    expect(mcpToolName('github', 'create_issue')).toBe('mcp_github_create_issue');
    expect(mcpToolName('fs', 'Read-File.v2')).toBe('mcp_fs_read_file_v2');
    expect(mcpToolName('fs', '../../etc/passwd')).toBe('mcp_fs__etc_passwd');
    expect(mcpToolName('fs', '名前')).toBe('mcp_fs__');
    expect(mcpToolName('fs', 'x'.repeat(100))).toHaveLength(64);
  });

  it('matches the policy translation of Claude Code names (mcp__server__tool) on ASCII names', () => {
    expect(mcpToolName('github', 'create-issue')).toBe('mcp_github_create_issue');
    expect(mcpToolName('my_server', 'Get__Thing')).toBe('mcp_my_server_get__thing');
  });

  it('folds compatibility characters (fullwidth letters) instead of passing them through', () => {
    expect(mcpToolName('fs', 'ｒｅａｄ')).toBe('mcp_fs_read');
  });

  it('always yields a valid tool name, whatever the upstream sends', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 200 }), (tool) => {
        expect(mcpToolName('server', tool)).toMatch(/^[a-z][a-z0-9_]{0,63}$/);
      }),
    );
  });
});
