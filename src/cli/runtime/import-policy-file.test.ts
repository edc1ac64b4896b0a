import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importPolicyFile } from './import-policy-file.js';

const SETTINGS = JSON.stringify({ permissions: { allow: ['Edit(/agents/**)'], deny: ['Read(~/.ssh/**)'] } });
const POLICY = '[[rule]]\ntoolName = "write_file"\ndecision = "deny"\npriority = 1\n';

/** `text` written at `<home>/<place>` and at `<workspace>/<place>`. */
function inBoth(place: string, text: string): { home: string; user: string; project: string } {
  const root = mkdtempSync(join(tmpdir(), 'toolgate-import-file-'));
  const [home, workspace] = [join(root, 'home'), join(root, 'workspace')];
  const [user, project] = [join(home, place), join(workspace, place)];
  for (const file of [user, project]) {
    mkdirSync(join(file, '..'), { recursive: true });
    writeFileSync(file, text);
  }
  return { home, user, project };
}

describe('importPolicyFile', () => {
  it("anchors a Claude Code /path rule of the user's settings in ~/.claude, and of a project's in the workspace, ~/ kept as written", async () => {
    const { home, user, project } = inBoth('.claude/settings.json', SETTINGS);
    const asUser = await importPolicyFile({ from: 'claude', path: user }, home);
    expect(asUser.scope).toBe('user');
    expect(asUser.rules).toMatchObject([
      { rule: 'Read(~/.ssh/**)', decision: 'deny', source: 'user' },
      { rule: 'Edit(~/.claude/agents/**)', decision: 'allow', source: 'user' },
    ]);
    // `~/` is the policy's to name (a gateway gives it the home directory): nothing to warn about.
    expect(asUser.warnings).toEqual([]);
    const asProject = await importPolicyFile({ from: 'claude', path: project }, home);
    expect(asProject.scope).toBe('project');
    expect(asProject.rules).toMatchObject([{ rule: 'Read(~/.ssh/**)' }, { rule: 'Edit(./agents/**)', source: 'project' }]);
    expect(asProject.sha256).toBe(asUser.sha256);
  });

  it("ranks a Gemini CLI user policy in the user tier, above every workspace rule, and a project's in the workspace tier", async () => {
    const { home, user, project } = inBoth('.gemini/policies/mine.toml', POLICY);
    expect((await importPolicyFile({ from: 'gemini', path: user }, home)).rules).toMatchObject([{ tool: 'write_file', decision: 'deny', priority: 4001, source: 'user' }]);
    expect((await importPolicyFile({ from: 'gemini', path: project }, home)).rules).toMatchObject([{ tool: 'write_file', decision: 'deny', priority: 3001, source: 'project' }]);
  });

  it('names the file it cannot parse', async () => {
    const { home, project } = inBoth('broken.json', '{');
    await expect(importPolicyFile({ from: 'claude', path: project }, home)).rejects.toThrow(`Policy import ${project} is not valid JSON.`);
    await expect(importPolicyFile({ from: 'gemini', path: project }, home)).rejects.toThrow(`Policy import ${project} is not valid TOML.`);
  });
});
