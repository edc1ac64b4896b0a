import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ToolPolicyError, type ConfirmActionHook } from '../../core/internal.js';
import { createRulePersister } from '../../node/index.js';
import { loadConfig } from '../config/load-config.js';
import { buildPolicy } from './build-policy.js';
import { openGateway } from './open-gateway.js';

function workspaceWith(config: unknown): string {
  const workspace = mkdtempSync(join(tmpdir(), 'toolgate-build-policy-'));
  writeFileSync(join(workspace, 'toolgate.config.json'), JSON.stringify(config));
  return workspace;
}

const denyEcho = (mode: string) => ({
  mode,
  servers: { up: { command: 'node', args: ['upstream.mjs'] } },
  policy: { allow: ['mcp__up', 'mcp_call(server:up)'], deny: ['mcp__up__echo'] },
});

describe('buildPolicy: mcp_call answers to the rules of the upstream tool it calls', () => {
  it.each(['auto', 'ask'])('a deny on mcp__up__echo refuses mcp_call up/echo in %s mode, with no approval asked', async (mode) => {
    const prompts: string[] = [];
    const prompt: ConfirmActionHook = (request) => {
      prompts.push(request.toolName);
      return Promise.resolve({ outcome: 'approve' });
    };
    const gateway = await openGateway(loadConfig(workspaceWith(denyEcho(mode))), { prompt, connectServers: false });
    try {
      for (const tool of ['echo', 'ECHO', 'ｅｃｈｏ']) {
        const outcome = await gateway.registry().dispatch({ callId: `c-${tool}`, name: 'mcp_call', arguments: { server: 'up', tool, arguments: { text: 'denied tool ran' } } }, gateway.context);
        expect(outcome.ok, tool).toBe(false);
        if (!outcome.ok) {
          expect(outcome.error.code).toBe('POLICY_DENIED');
          expect((outcome.error as ToolPolicyError).reason).toBe('rule_denied');
        }
      }
      expect(prompts).toEqual([]);
      // Another tool of the same server is not denied: in ask mode it reaches the prompt.
      await gateway.registry().dispatch({ callId: 'other', name: 'mcp_call', arguments: { server: 'up', tool: 'other' } }, gateway.context);
      expect(prompts).toEqual(mode === 'ask' ? ['mcp_call'] : []);
    } finally {
      await gateway.close();
    }
  });

  it('policy explain shows the deny on the target', async () => {
    const built = await buildPolicy(loadConfig(workspaceWith(denyEcho('auto'))));
    const explanation = built.snapshot.explain({ tool: 'mcp_call', target: { server: 'up' }, args: { server: 'up', tool: 'echo' } });
    expect(explanation.decision).toMatchObject({ kind: 'deny', reason: 'rule_denied' });
    expect(explanation.rules.find((rule) => rule.winner)?.rule).toBe('mcp__up__echo');
  });
});

describe('buildPolicy: remembered approvals', () => {
  it('takes no allow from a project policy file this user did not write, and no rule from it outranks the configuration', async () => {
    const workspace = workspaceWith({ mode: 'ask', policy: { deny: ['Read(./notes.md)'] } });
    mkdirSync(join(workspace, '.toolgate'), { recursive: true });
    // What a cloned repository could ship: a "managed" allow at a high priority, and a deny.
    const shipped = {
      rules: [
        { tool: 'read_file', decision: 'allow', source: 'managed', priority: 100, match: { path: './notes.md' } },
        { tool: 'read_file', decision: 'allow', source: 'project', match: { path: './other.md' } },
        { tool: 'write_file', decision: 'deny', source: 'project' },
      ],
    };
    writeFileSync(join(workspace, '.toolgate', 'policy.json'), JSON.stringify(shipped));
    const built = await buildPolicy(loadConfig(workspace));
    expect(built.warnings.join('\n')).toContain('was not written by this user');
    expect(built.snapshot.explain({ tool: 'read_file', target: { path: 'notes.md' } }).decision.kind).toBe('deny');
    expect(built.snapshot.explain({ tool: 'read_file', target: { path: 'other.md' } }).rules.filter((rule) => rule.decision === 'allow')).toEqual([]);
    // Its deny only narrows, so it stays.
    expect(built.snapshot.explain({ tool: 'write_file', target: { path: 'x.md' } }).decision.kind).toBe('deny');

    // The user's own "always" approval rewrites the file without the shipped allows, and then it is trusted.
    await createRulePersister({ projectRoot: workspace, home: homedir() }).persist({ tool: 'read_file', decision: 'allow', source: 'project', match: { path: './mine.md' } });
    const rebuilt = await buildPolicy(loadConfig(workspace));
    expect(rebuilt.warnings.join('\n')).not.toContain('was not written by this user');
    expect(rebuilt.snapshot.explain({ tool: 'read_file', target: { path: 'mine.md' } }).rules.map((rule) => rule.decision)).toEqual(['allow']);
    expect(rebuilt.snapshot.explain({ tool: 'read_file', target: { path: 'other.md' } }).rules.filter((rule) => rule.decision === 'allow')).toEqual([]);
  });
});

describe('buildPolicy: imports', () => {
  it('loads two imports of the same kind (their rule ids do not collide)', async () => {
    const workspace = workspaceWith({ policy: { imports: [{ from: 'claude', path: 'a.json' }, { from: 'claude', path: 'b.json' }] } });
    writeFileSync(join(workspace, 'a.json'), JSON.stringify({ permissions: { deny: ['Read(./secret.txt)'] } }));
    writeFileSync(join(workspace, 'b.json'), JSON.stringify({ permissions: { deny: ['Read(./other.txt)'] } }));
    const built = await buildPolicy(loadConfig(workspace));
    for (const path of ['secret.txt', 'other.txt']) expect(built.snapshot.explain({ tool: 'read_file', target: { path } }).decision.kind, path).toBe('deny');
  });
});

describe('buildPolicy: an imported file never outranks the operator', () => {
  const geminiFile = (workspace: string, text: string): void => writeFileSync(join(workspace, 'repo.toml'), text);
  const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');
  const ALLOW_WRITES = '[[rule]]\ntoolName = "write_file"\ndecision = "allow"\npriority = 999\n';
  const DENY_THEN_ALLOW = '[[rule]]\ntoolName = "run_shell_command"\ndecision = "deny"\npriority = 100\n\n[[rule]]\ntoolName = "run_shell_command"\ncommandPrefix = "git status"\ndecision = "allow"\npriority = 200\n';

  it("holds an imported allow below the configuration's rules, whatever priority the file gave it", async () => {
    const workspace = workspaceWith({ policy: { ask: ['Write(notes/**)'], rules: [{ tool: 'write_file', decision: 'deny', priority: -20, source: 'project', match: { path: 'locked/**' } }], imports: [{ from: 'gemini', path: 'repo.toml', sha256: sha256(ALLOW_WRITES) }] } });
    geminiFile(workspace, ALLOW_WRITES);
    const built = await buildPolicy(loadConfig(workspace));
    expect(built.snapshot.explain({ tool: 'write_file', target: { path: 'notes/a.md' } }).decision.kind).toBe('ask');
    expect(built.snapshot.explain({ tool: 'write_file', target: { path: 'locked/a.md' } }).decision.kind).toBe('deny');
    expect(built.snapshot.explain({ tool: 'write_file', target: { path: 'other.md' } }).rules.map((rule) => [rule.decision, rule.priority])).toEqual([['allow', -21]]);
  });

  it("keeps the file's own deny and ask in place, so an allow it ranked above them no longer applies, with a warning", async () => {
    const workspace = workspaceWith({ policy: { imports: [{ from: 'gemini', path: 'repo.toml', sha256: sha256(DENY_THEN_ALLOW) }] } });
    geminiFile(workspace, DENY_THEN_ALLOW);
    const built = await buildPolicy(loadConfig(workspace));
    expect(built.snapshot.explain({ tool: 'run_command', target: { command: 'git status' } }).decision.kind).toBe('deny');
    expect(built.warnings.join('\n')).toContain('ranked above a deny or ask rule of the same file; an imported allow ranks below every other rule');
  });

  it('holds a Claude Code allow below a configuration deny given a priority under 0', async () => {
    const workspace = workspaceWith({ policy: { rules: [{ tool: 'read_file', decision: 'deny', priority: -5, source: 'project', match: { path: 'secret.txt' } }], imports: [{ from: 'claude', path: 'settings.json' }] } });
    writeFileSync(join(workspace, 'settings.json'), JSON.stringify({ permissions: { allow: ['Read(secret.txt)'] } }));
    const built = await buildPolicy(loadConfig(workspace));
    expect(built.snapshot.explain({ tool: 'read_file', target: { path: 'secret.txt' } }).decision.kind).toBe('deny');
  });

  it.each([[[0, 1]], [[1, 0]]])("holds one file's ask below another file's deny, in either order (%j)", async (order) => {
    const imports = [{ from: 'claude', path: 'settings.json' }, { from: 'gemini', path: 'repo.toml' }];
    const workspace = workspaceWith({ policy: { imports: order.map((index) => imports[index]) } });
    writeFileSync(join(workspace, 'settings.json'), JSON.stringify({ permissions: { deny: ['Read(.env)'], ask: ['Bash(git push:*)'] } }));
    geminiFile(workspace, '[[rule]]\ntoolName = "read_file"\ndecision = "ask_user"\npriority = 999\n\n[[rule]]\ntoolName = "run_shell_command"\ncommandPrefix = "git push"\ndecision = "deny"\npriority = 1\n');
    const built = await buildPolicy(loadConfig(workspace));
    expect(built.snapshot.explain({ tool: 'read_file', target: { path: '.env' } }).decision.kind).toBe('deny');
    expect(built.snapshot.explain({ tool: 'read_file', target: { path: 'notes.md' } }).decision.kind).toBe('ask');
    expect(built.snapshot.explain({ tool: 'run_command', target: { command: 'git push' } }).decision.kind).toBe('deny');
  });

  it("loads an unpinned file's deny and ask rules only, and names the digest to pin", async () => {
    const workspace = workspaceWith({ policy: { imports: [{ from: 'gemini', path: 'repo.toml' }, { from: 'gemini', path: 'repo.toml', sha256: sha256('other content') }] } });
    geminiFile(workspace, DENY_THEN_ALLOW);
    const built = await buildPolicy(loadConfig(workspace));
    const explained = built.snapshot.explain({ tool: 'run_command', target: { command: 'git status' } });
    expect(explained.decision.kind).toBe('deny');
    expect(explained.rules.filter((rule) => rule.decision === 'allow')).toEqual([]);
    expect(built.counts.imported).toBe(2);
    expect(built.warnings).toContain(`${join(workspace, 'repo.toml')}: its 1 allow rule(s) are ignored: the configuration does not pin its content (a repository can ship or change the file). Read it, then set policy.imports[0].sha256 to ${sha256(DENY_THEN_ALLOW)} to trust them.`);
    expect(built.warnings.join('\n')).toContain('policy.imports[1].sha256 to');
    expect(built.warnings.join('\n')).toContain('its content is not the one the configuration pins');
  });
});

describe("buildPolicy: an import of the user's own file is read as the user's", () => {
  /** Build with HOME at a fresh folder, as a gateway started with that HOME does. */
  async function builtUnderHome(config: (home: string) => unknown, files: Record<string, string>): Promise<Awaited<ReturnType<typeof buildPolicy>>> {
    const home = mkdtempSync(join(tmpdir(), 'toolgate-build-policy-home-'));
    for (const [name, text] of Object.entries(files)) {
      mkdirSync(join(home, name, '..'), { recursive: true });
      writeFileSync(join(home, name), text);
    }
    const saved = process.env.HOME;
    process.env.HOME = home;
    try {
      return await buildPolicy(loadConfig(workspaceWith(config(home))));
    } finally {
      process.env.HOME = saved;
    }
  }

  it("keeps a Gemini CLI user policy's deny above a workspace policy's ask, as Gemini CLI's tiers do", async () => {
    const workspaceAsk = '[[rule]]\ntoolName = "write_file"\ndecision = "ask_user"\npriority = 999\n';
    const built = await builtUnderHome((home) => ({ policy: { imports: [{ from: 'gemini', path: join(home, '.gemini/policies/mine.toml') }, { from: 'gemini', path: join(home, 'repo/.gemini/policies/repo.toml') }] } }), {
      '.gemini/policies/mine.toml': '[[rule]]\ntoolName = "write_file"\ndecision = "deny"\npriority = 1\n',
      'repo/.gemini/policies/repo.toml': workspaceAsk,
    });
    // Both read as workspace policies, the ask at 3999 outranked the user's deny at 3001: a card a person could approve.
    expect(built.snapshot.explain({ tool: 'write_file', target: { path: 'notes.md' } }).decision.kind).toBe('deny');
  });

  it('refuses to start when the configuration declares the user\'s own settings a project\'s', async () => {
    const settings = { '.claude/settings.json': JSON.stringify({ permissions: { allow: ['Edit(/agents/**)'] } }) };
    await expect(builtUnderHome((home) => ({ policy: { imports: [{ from: 'claude', path: join(home, '.claude/settings.json'), scope: 'project' }] } }), settings)).rejects.toThrow("is the user's own Claude Code file");
    const declaredUser = await builtUnderHome((home) => ({ policy: { imports: [{ from: 'claude', path: join(home, '.claude/settings.json'), scope: 'user' }] } }), settings);
    expect(declaredUser.snapshot.explain({ tool: 'write_file', target: { path: 'agents/reviewer.md' } }).rules).toEqual([]);
  });
});

describe('buildPolicy: an imported file is protected', () => {
  it('a write to it asks a person, whatever the rules allow', async () => {
    const workspace = workspaceWith({ scope: 'workspace-write', policy: { allow: ['Write(**)'], imports: [{ from: 'claude', path: 'policy/claude.json' }] } });
    mkdirSync(join(workspace, 'policy'));
    writeFileSync(join(workspace, 'policy', 'claude.json'), JSON.stringify({ permissions: { deny: ['Read(.env)'] } }));
    const built = await buildPolicy(loadConfig(workspace));
    expect(built.snapshot.explain({ tool: 'write_file', target: { path: 'policy/claude.json' } }).decision).toMatchObject({ kind: 'ask', reason: 'protected_path' });
    expect(built.snapshot.explain({ tool: 'write_file', target: { path: 'policy/other.json' } }).decision.kind).toBe('allow');
  });
});

describe('buildPolicy: a script the configuration starts as an upstream server is protected', () => {
  it('a write to it asks a person, whatever the rules allow, and its neighbour does not', async () => {
    const workspace = workspaceWith({ scope: 'workspace-write', policy: { allow: ['Write(**)'] }, servers: { notes: { command: 'node', args: ['servers/notes.mjs'] } } });
    const built = await buildPolicy(loadConfig(workspace));
    expect(built.snapshot.explain({ tool: 'write_file', target: { path: 'servers/notes.mjs' } }).decision).toMatchObject({ kind: 'ask', reason: 'protected_path' });
    expect(built.snapshot.explain({ tool: 'write_file', target: { path: 'servers/other.mjs' } }).decision.kind).toBe('allow');
  });
});

describe('buildPolicy: the files the configuration names are protected by their names, not read as patterns', () => {
  it('a glob character in a name protects that one file: not every file the pattern would match, and never fewer', async () => {
    const workspace = workspaceWith({
      scope: 'workspace-write',
      policy: { allow: ['Write(**)'] },
      servers: { docs: { command: 'node', args: ['srv/a+(b).mjs', '--allow=*.md', 'srv/[ab].mjs'] } },
    });
    const built = await buildPolicy(loadConfig(workspace));
    const decided = (path: string): string => built.snapshot.explain({ tool: 'write_file', target: { path } }).decision.kind;
    expect(decided('srv/a+(b).mjs')).toBe('ask');
    expect(decided('*.md')).toBe('ask');
    expect(decided('srv/[ab].mjs')).toBe('ask');
    expect(decided('notes.md')).toBe('allow');
    expect(decided('srv/a.mjs')).toBe('allow');
    expect(decided('srv/ab.mjs')).toBe('allow');
  });
});
