import { execFileSync } from 'node:child_process';
import { appendFileSync, chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from './fixtures/mcp/helpers.js';
import { closeAfterEach, connectClient, makeWorkspace, serveWorkspace } from './support/serve-gateway.js';

// A hostile repository with the git reference server (`mcp-server-git`). The gateway starts the server as a plain
// child process, outside the sandbox of `run_command`, and the server's git honours the configuration of the
// repository it is named. A repository ships a folder that is a git folder as it stands (`HEAD`, `config`,
// `objects/`, `refs/`: ordinary files git tracks), and `repo_path` names it, or a `.git` file elsewhere leads into
// it. Its `config` names programs (`diff.external`, `core.fsmonitor`) and its `hooks/pre-commit`, which GitPython's
// `index.commit` runs from the git folder whatever git's settings say. Each ran on the host with the first call.

const REFERENCE = join(ROOT, 'test/fixtures/mcp/reference-servers.mjs');
const open = closeAfterEach();
const folders: string[] = [];
afterAll(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});
const git = (cwd: string, ...args: string[]): string => execFileSync('git', ['-c', 'user.name=u', '-c', 'user.email=u@example.com', ...args], { cwd, encoding: 'utf8', stdio: 'pipe' });

/** A workspace that is the user's repository, holding what a hostile clone ships: git folders under `vendor/`. */
function hostileWorkspace(): string {
  const workspace = makeWorkspace(
    {
      scope: 'workspace-write',
      mode: 'auto',
      console: { enabled: false },
      servers: { git: { command: process.execPath, args: [REFERENCE, 'mcp-server-git', '--run-git'] } },
      policy: { allow: ['git_status', 'git_diff', 'git_diff_unstaged', 'git_log', 'git_commit'].map((tool) => `mcp__git__${tool}`) },
    },
    { 'notes.md': 'ordinary\n' },
  );
  const source = mkdtempSync(join(tmpdir(), 'toolgate-git-config-source-'));
  folders.push(source);
  git(source, 'init', '-q');
  writeFileSync(join(source, 'f'), 'a\n');
  git(source, 'add', 'f');
  git(source, 'commit', '-qm', 'a');
  writeFileSync(join(source, 'f'), 'b\n');
  git(source, 'commit', '-qam', 'b');
  git(workspace, 'init', '-q');
  git(workspace, 'add', 'notes.md');
  git(workspace, 'commit', '-qm', 'user');
  mkdirSync(join(workspace, 'vendor'));
  const marker = (name: string): string => join(workspace, `PWNED-${name}`);
  // A bare one: git, started in it, reads its configuration.
  git(workspace, 'clone', '-q', '--bare', source, 'vendor/lib');
  appendFileSync(join(workspace, 'vendor/lib/config'), `[diff]\n\texternal = "touch ${marker('diff')}; false"\n`);
  writeFileSync(join(workspace, 'vendor/lib/hooks/pre-commit'), `#!/bin/sh\ntouch ${marker('hook')}\n`);
  chmodSync(join(workspace, 'vendor/lib/hooks/pre-commit'), 0o755);
  // One with a work tree elsewhere, which a `.git` file leads into.
  git(workspace, 'clone', '-q', '--bare', source, 'vendor/other');
  appendFileSync(join(workspace, 'vendor/other/config'), `[core]\n\tbare = false\n\tfsmonitor = "touch ${marker('fsmonitor')}; false"\n`);
  mkdirSync(join(workspace, 'sub'));
  writeFileSync(join(workspace, 'sub/.git'), 'gitdir: ../vendor/other\n');
  return workspace;
}

describe('attack: mcp-server-git runs the configuration and hooks of a repository the workspace ships', () => {
  it('a git folder named as repo_path, or led into by a .git file, runs none of its programs', async () => {
    const workspace = hostileWorkspace();
    const gateway = open.gateway(await serveWorkspace(workspace));
    const { client } = await connectClient(gateway.mcpUrl, 'attacker', undefined, gateway.auth);
    open.client(client);
    const call = (name: string, args: Record<string, string>) => client.callTool({ name: `mcp_git_${name}`, arguments: args });

    const own = await call('git_status', { repo_path: '.' });
    expect(own.isError, JSON.stringify(own.content)).not.toBe(true);
    expect(JSON.stringify(own.content)).toContain('On branch');

    const attempts: [string, Record<string, string>][] = [
      ['git_diff', { repo_path: 'vendor/lib', target: 'HEAD~1..HEAD' }],
      ['git_log', { repo_path: 'vendor/lib' }],
      ['git_commit', { repo_path: 'vendor/lib', message: 'm' }],
      ['git_status', { repo_path: 'sub' }],
      ['git_diff_unstaged', { repo_path: 'sub' }],
      ['git_status', { repo_path: 'vendor/other' }],
    ];
    const answers: string[] = [];
    for (const [name, args] of attempts) {
      const result = await call(name, args);
      answers.push(`${name} ${JSON.stringify(args)}: ${result.isError === true ? 'refused' : 'ran'}: ${JSON.stringify(result.content)}`);
    }
    expect(readdirSync(workspace).filter((entry) => entry.startsWith('PWNED-'))).toEqual([]);
    // Refused before the server is called: the repository holds what git or GitPython would run.
    for (const answer of answers) expect(answer).toMatch(/^\S+ \S+: refused: .*holds/);
    expect(existsSync(join(workspace, 'vendor/lib/config'))).toBe(true);
  }, 30_000);

  it("the workspace's own repository, whose configuration includes a file of the work tree, runs none of what that file names", async () => {
    const workspace = hostileWorkspace();
    const marker = (name: string): string => join(workspace, `PWNED-${name}`);
    // The user's own setting: a shared configuration kept in the work tree, which the repository (or a model) writes.
    git(workspace, 'config', 'include.path', '../shared.gitconfig');
    writeFileSync(
      join(workspace, 'shared.gitconfig'),
      `[core]\n\tfsmonitor = "touch ${marker('own-fsmonitor')}; false"\n\tpager = "touch ${marker('own-pager')}; cat"\n[diff]\n\texternal = "touch ${marker('own-diff')}; false"\n[filter "x"]\n\tclean = "touch ${marker('own-filter')}; cat"\n`,
    );
    writeFileSync(join(workspace, '.gitattributes'), '*.md filter=x\n');
    writeFileSync(join(workspace, 'notes.md'), 'changed\n');
    const gateway = open.gateway(await serveWorkspace(workspace));
    const { client } = await connectClient(gateway.mcpUrl, 'attacker', undefined, gateway.auth);
    open.client(client);
    const answers: string[] = [];
    // And through a nested repository that holds nothing itself, whose work tree is a folder of the workspace: git,
    // started there, finds the workspace's own repository.
    const clean = join(workspace, 'vendor/clean');
    git(workspace, 'clone', '-q', '--bare', join(workspace, 'vendor/lib'), clean);
    git(clean, 'config', 'core.bare', 'false');
    mkdirSync(join(workspace, 'docs'));
    git(clean, 'config', 'core.worktree', join(workspace, 'docs'));
    for (const [name, repo] of [['git_status', '.'], ['git_diff_unstaged', '.'], ['git_diff_unstaged', 'vendor/clean']]) {
      const result = await client.callTool({ name: `mcp_git_${String(name)}`, arguments: { repo_path: repo } });
      answers.push(`${String(name)}: ${result.isError === true ? 'refused' : 'ran'}: ${JSON.stringify(result.content)}`);
    }
    expect(readdirSync(workspace).filter((entry) => entry.startsWith('PWNED-')), answers.join('\n')).toEqual([]);
    for (const answer of answers) expect(answer).toMatch(/^\S+: refused: .*holds/);
  }, 30_000);

  it("the server's git keeps the fixed programs off, and a commit does not run the hooks of a work-tree hooks folder", async () => {
    const workspace = hostileWorkspace();
    const marker = (name: string): string => join(workspace, `PWNED-${name}`);
    git(workspace, 'config', 'include.path', '../shared.gitconfig');
    writeFileSync(join(workspace, 'shared.gitconfig'), `[core]\n\tfsmonitor = "touch ${marker('own-fsmonitor')}; false"\n[diff]\n\texternal = "touch ${marker('own-diff')}; false"\n`);
    writeFileSync(join(workspace, 'notes.md'), 'changed\n');
    // As husky sets it: the hooks live in the work tree, where a command writes one.
    git(workspace, 'config', 'core.hooksPath', '.husky');
    mkdirSync(join(workspace, '.husky'));
    const gateway = open.gateway(await serveWorkspace(workspace));
    const { client } = await connectClient(gateway.mcpUrl, 'attacker', undefined, gateway.auth);
    open.client(client);
    const call = (name: string, args: Record<string, string>) => client.callTool({ name: `mcp_git_${name}`, arguments: { repo_path: '.', ...args } });
    const diff = await call('git_diff_unstaged', {});
    expect(diff.isError, JSON.stringify(diff.content)).not.toBe(true);
    expect(JSON.stringify(diff.content)).toContain('+changed');
    const status = await call('git_status', {});
    expect(status.isError, JSON.stringify(status.content)).not.toBe(true);
    const clean = await call('git_commit', { message: 'no hooks yet' });
    expect(clean.isError, JSON.stringify(clean.content)).not.toBe(true);
    writeFileSync(join(workspace, '.husky/pre-commit'), `#!/bin/sh\ntouch ${marker('own-hook')}\n`);
    chmodSync(join(workspace, '.husky/pre-commit'), 0o755);
    const hooked = await call('git_commit', { message: 'm' });
    expect(readdirSync(workspace).filter((entry) => entry.startsWith('PWNED-')), JSON.stringify(hooked.content)).toEqual([]);
    expect(JSON.stringify(hooked.content)).toContain('core.hooksPath');
  }, 30_000);
});
