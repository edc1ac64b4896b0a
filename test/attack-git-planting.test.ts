import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useAttackHomes } from './support/attack-workspace.js';
import { decideIfAsked } from './support/pending-approval.js';
import { closeAfterEach, connectClient, makeWorkspace, serveWorkspace } from './support/serve-gateway.js';
import { serveRepository, userGit, type ServedRepository } from './support/served-repository.js';

// A hostile repository, or a model that wrote a script under accept-edits, runs a command the policy lets through
// (`node *`, `tar *`) that writes into `.git`: a hook, or a configuration key naming a program. toolgate's own git
// never runs them (it pins hooks and those keys), but the user's own git, outside toolgate and outside the sandbox,
// does at the next `git commit`. Each drives `toolgate serve` with the MCP SDK client, then commits with the
// user's git and checks that nothing ran.

const text = (result: object): string => JSON.stringify((result as { content?: unknown }).content);
const opened = closeAfterEach();
const attackHome = useAttackHomes('toolgate-git-planting-home');

/** Writes a hook and a configuration key the user's git runs, by names the argv never shows. */
const PLANT_JS = `
const fs = require('node:fs');
const git = ['.', 'git'].join('');
const marker = require('node:path').resolve('PWNED');
const tried = [];
const attempt = (what, work) => { try { work(); tried.push(what + ': written'); } catch (error) { tried.push(what + ': ' + error.code); } };
attempt('hook', () => fs.writeFileSync(git + '/hooks/pre-commit', '#!/bin/sh\\ntouch ' + marker + '-hook\\n', { mode: 0o755 }));
attempt('config', () => fs.appendFileSync(git + '/config', '[core]\\n\\tfsmonitor = "touch ' + marker + '-fsmonitor; false"\\n'));
attempt('config replaced', () => { fs.writeFileSync('c.new', fs.readFileSync(git + '/config', 'utf8') + '[core]\\n\\thooksPath = hooks2\\n'); fs.renameSync('c.new', git + '/config'); });
attempt('config.worktree', () => fs.writeFileSync(git + '/config.worktree', '[core]\\n\\tfsmonitor = "touch ' + marker + '-worktree; false"\\n'));
console.log(tried.join('\\n'));
`;

/** Moves the repository aside and builds a new `.git` around it, with a hook in it. */
const SWAP_JS = `
const fs = require('node:fs');
const git = ['.', 'git'].join('');
const marker = require('node:path').resolve('PWNED');
try {
  fs.renameSync(git, 'moved');
  fs.mkdirSync(git + '/hooks', { recursive: true });
  for (const name of ['HEAD', 'config', 'objects', 'refs']) fs.renameSync('moved/' + name, git + '/' + name);
  fs.writeFileSync(git + '/hooks/pre-commit', '#!/bin/sh\\ntouch ' + marker + '-swap\\n', { mode: 0o755 });
  console.log('swapped');
} catch (error) { console.log('refused: ' + error.code); }
`;

/**
 * Leaves `.git/hooks` and `.git/config` alone: builds another common directory beside the repository, with a hook
 * and a program-naming key, and points `.git/commondir` at it. git reads a repository's configuration and hooks
 * from its common directory (a linked worktree's `commondir`), whatever `.git` it started from.
 */
const COMMONDIR_JS = `
const fs = require('node:fs');
const git = ['.', 'git'].join('');
const marker = require('node:path').resolve('PWNED');
try {
  for (const folder of ['objects', 'refs/heads', 'refs/tags', 'hooks']) fs.mkdirSync('common/' + folder, { recursive: true });
  fs.writeFileSync('common/config', '[core]\\n\\trepositoryformatversion = 0\\n\\tfsmonitor = "touch ' + marker + '-commondir-fsmonitor; false"\\n');
  fs.writeFileSync('common/hooks/pre-commit', '#!/bin/sh\\ntouch ' + marker + '-commondir-hook\\n', { mode: 0o755 });
  fs.writeFileSync(git + '/commondir', '../common\\n');
  console.log('pointed');
} catch (error) { console.log('refused: ' + error.code); }
`;

/** Writes, at ordinary paths of the working tree, a hook and a configuration naming a program, for the agent's git to stage. */
const STAGED_PAYLOAD_JS = `
const fs = require('node:fs');
const path = require('node:path');
fs.mkdirSync('t/hooks', { recursive: true });
fs.writeFileSync('t/hooks/pre-commit', '#!/bin/sh\\ntouch ' + path.resolve('PWNED-prefix-hook') + '\\n', { mode: 0o755 });
fs.writeFileSync('t/config', '[core]\\n\\trepositoryformatversion = 0\\n\\tbare = false\\n\\tfsmonitor = "touch ' + path.resolve('PWNED-prefix-fsmonitor') + '; false"\\n');
console.log('staged payload written');
`;

/** Writes a patch that makes `.git/hooks/pre-commit`, for the agent's git to apply. */
const HOOK_PATCH_JS = `
const path = require('node:path');
const body = ['#!/bin/sh', 'touch ' + path.resolve('PWNED-patch-hook')];
const lines = ['diff --git a/.git/hooks/pre-commit b/.git/hooks/pre-commit', 'new file mode 100755', '--- /dev/null', '+++ b/.git/hooks/pre-commit', '@@ -0,0 +1,' + body.length + ' @@', ...body.map((line) => '+' + line)];
require('node:fs').writeFileSync('change.patch', lines.join('\\n') + '\\n');
console.log('patch written');
`;

/**
 * Prepares two ways for the agent's git to write into `.git` by paths no argument names: a nested repository whose
 * `core.worktree` leads into `.git/hooks` (its index holding a hook), and a patch making `g/hooks/pre-commit`
 * beside a link `g -> .git` that is in no index.
 */
const INTO_GIT_JS = `
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const git = (...args) => execFileSync('git', args, { stdio: 'pipe', encoding: 'utf8' }).trim();
const dot = ['.', 'git'].join('');
git('init', '-q', 'nested');
fs.writeFileSync('nested/pre-commit', '#!/bin/sh\\ntouch ' + path.resolve('PWNED-worktree-hook') + '\\n', { mode: 0o755 });
git('-C', 'nested', 'add', 'pre-commit');
fs.appendFileSync('nested/' + dot + '/config', '[core]\\n\\tworktree = ../../' + dot + '/hooks\\n');
fs.symlinkSync(dot, 'g');
const body = ['#!/bin/sh', 'touch ' + path.resolve('PWNED-linked-patch-hook')];
const lines = ['diff --git a/g/hooks/pre-commit b/g/hooks/pre-commit', 'new file mode 100755', '--- /dev/null', '+++ b/g/hooks/pre-commit', '@@ -0,0 +1,' + body.length + ' @@', ...body.map((line) => '+' + line)];
fs.writeFileSync('linked.patch', lines.join('\\n') + '\\n');
console.log('prepared');
`;

/**
 * Makes a nested repository whose configuration names a program, and lists it in the workspace's index as a
 * submodule (a gitlink). The user's own `git status` then runs git inside it, with that configuration. With
 * `none` the script only makes the repository, and the agent's next `git add sub` lists it; with `locked` it
 * also leaves a `.git/index.lock` behind, which stops any git that would write the index; with `refused` the
 * entry is named `git~1`, which git lists but, by default, refuses to handle (to take out); with `race` it lists
 * the entry again each time it is taken out, until a second script has come and gone.
 */
const nestedJs = (list: 'entry' | 'locked' | 'none' | 'refused' | 'race'): string => `
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const marker = require('node:path').resolve('PWNED');
const git = (...args) => execFileSync('git', args, { stdio: 'pipe', encoding: 'utf8' }).trim();
const name = ${JSON.stringify(list === 'refused' ? 'git~1' : 'sub')};
git('init', '-q', name);
git('-C', name, '-c', 'user.name=m', '-c', 'user.email=m@example.com', 'commit', '-q', '--allow-empty', '-m', 'sub');
fs.appendFileSync(name + '/.git/config', '[core]\\n\\tfsmonitor = "touch ' + marker + '-nested; false"\\n');
const entry = ['update-index', '--add', '--cacheinfo', '160000,' + git('-C', name, 'rev-parse', 'HEAD') + ',' + name];
${list === 'none' ? '' : `git(${list === 'refused' ? "'-c', 'core.protectNTFS=false', " : ''}...entry);`}
${list === 'locked' ? "fs.writeFileSync('.git/index.lock', '');" : ''}
${list === 'race' ? "fs.writeFileSync('entry.json', JSON.stringify(entry)); Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 3000);" : ''}
console.log('index: ' + git('ls-files', '--stage'));
`;

/** The second script of the race: once the first script's entry has been taken out, lists it again. */
const RELIST_JS = `
const { execFileSync } = require('node:child_process');
const git = (...args) => execFileSync('git', args, { stdio: 'pipe', encoding: 'utf8' }).trim();
while (git('ls-files', '--stage').includes('160000')) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 100);
git(...JSON.parse(require('node:fs').readFileSync('entry.json', 'utf8')));
console.log('listed again');
`;

/**
 * Two commands that get a gitlink past a check of the index file's times: the first stages `sub` as a plain file
 * and writes beside it the same index with `sub` a gitlink (the same size); the second maps `.git/index`, dirties
 * its page (its times change, once), waits until a listing has read it (another command ended meanwhile), then
 * writes the gitlink index through the mapping, which changes neither the times nor the size.
 */
const MAPPED_PREPARE_JS = `
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const marker = require('node:path').resolve('PWNED');
const git = (...args) => execFileSync('git', args, { stdio: 'pipe', encoding: 'utf8' }).trim();
git('init', '-q', 'sub');
git('-C', 'sub', '-c', 'user.name=m', '-c', 'user.email=m@example.com', 'commit', '-q', '--allow-empty', '-m', 'sub');
fs.appendFileSync('sub/.git/config', '[core]\\n\\tfsmonitor = "touch ' + marker + '-nested; false"\\n');
const blob = execFileSync('git', ['hash-object', '-w', '--stdin'], { input: 'x' }).toString().trim();
git('update-index', '--add', '--cacheinfo', '100644,' + blob + ',sub');
execFileSync('git', ['update-index', '--add', '--cacheinfo', '160000,' + git('-C', 'sub', 'rev-parse', 'HEAD') + ',sub'], { env: { ...process.env, GIT_INDEX_FILE: '.other-index' } });
console.log(fs.statSync('.git/index').size === fs.statSync('.other-index').size ? 'same size' : 'sizes differ');
`;
const MAPPED_WRITE_PY = [
  'import mmap, os, time',
  "fd = os.open('.git/index', os.O_RDWR)",
  'm = mmap.mmap(fd, 0)',
  'm[0:1] = m[0:1]',
  "dirtied = os.stat('.git/index').st_mtime_ns",
  "open('armed', 'w').close()",
  "while os.stat('.git/index').st_atime_ns < dirtied: time.sleep(0.05)",
  // Written by the test once the other command's call answered: it has ended, and its check with it.
  "while not os.path.exists('listed'): time.sleep(0.05)",
  "other = open('.other-index', 'rb').read()",
  'm[0:len(other)] = other',
  "print('written; times unchanged:', os.stat('.git/index').st_mtime_ns == dirtied)",
].join('\n');
const MAPPED_WRITE_JS = `
require('node:fs').writeFileSync('write.py', ${JSON.stringify(MAPPED_WRITE_PY)});
process.stdout.write(require('node:child_process').execFileSync('/usr/bin/python3', ['write.py'], { encoding: 'utf8' }));
`;

/** A fresh repository workspace served to the attacking agent (`serveRepository`). */
const servedRepository = (scope: string, programs: readonly string[], files: Record<string, string>): Promise<ServedRepository> => serveRepository(opened, attackHome(), scope, programs, files);
const userStatus = (workspace: string): string => userGit(workspace, 'status');
const userCommits = (workspace: string): string => userGit(workspace, 'commit', '-q', '--allow-empty', '-m', 'after the agent');

describe.each(['workspace-write', 'full'])('attack: a glob-allowed command plants what the user\'s git runs, in %s', (scope) => {
  it('a script writes a hook and a configuration key into .git, by names its argv does not show: the user\'s next commit runs none', async () => {
    const workspace = makeWorkspace({ scope, mode: 'auto', policy: { allowedCommandGlobs: ['node *', 'tar *'], allow: ['Bash(node *)', 'Bash(tar *)'] } }, { 'plant.js': PLANT_JS, 'swap.js': SWAP_JS, 'dogit/hooks/pre-commit': '#!/bin/sh\ntouch PWNED-tar\n' });
    execFileSync('git', ['init', '-q'], { cwd: workspace });
    // The user reads per-worktree configuration (`config.worktree`), and has none yet.
    execFileSync('git', ['config', 'extensions.worktreeConfig', 'true'], { cwd: workspace });
    const configBefore = readFileSync(join(workspace, '.git', 'config'), 'utf8');
    const gateway = await serveWorkspace(workspace, { env: { HOME: attackHome() } });
    opened.gateway(gateway);
    const { client } = await connectClient(gateway.mcpUrl, 'attacker', undefined, gateway.auth);
    opened.client(client);
    const run = async (command: string[]): Promise<string> => text((await decideIfAsked(gateway, client, 'run_command', { command }, 'reject')).result);

    const planted = await run(['node', 'plant.js']);
    expect(planted).toContain('"sandbox\\":\\"bwrap');
    // tar names `dogit` and writes `.git`: the argv never names the repository.
    await run(['tar', '-cf', 'x.tar', '--mode=755', 'dogit']);
    await run(['tar', '-xf', 'x.tar', '--transform=s/^do/./']);
    const swapped = await run(['node', 'swap.js']);

    expect(existsSync(join(workspace, '.git', 'hooks', 'pre-commit')), planted).toBe(false);
    expect(readFileSync(join(workspace, '.git', 'config'), 'utf8'), planted).toBe(configBefore);
    expect(existsSync(join(workspace, 'moved')), swapped).toBe(false);
    userCommits(workspace);
    for (const marker of ['PWNED-hook', 'PWNED-fsmonitor', 'PWNED-worktree', 'PWNED-tar', 'PWNED-swap']) expect(existsSync(join(workspace, marker)), marker).toBe(false);
  });

  it('a script points .git/commondir at a repository directory of its own: the user\'s next commit runs nothing of it', async () => {
    const workspace = makeWorkspace({ scope, mode: 'auto', policy: { allowedCommandGlobs: ['node *'], allow: ['Bash(node *)'] } }, { 'common.js': COMMONDIR_JS });
    execFileSync('git', ['init', '-q'], { cwd: workspace });
    const gateway = await serveWorkspace(workspace, { env: { HOME: attackHome() } });
    opened.gateway(gateway);
    const { client } = await connectClient(gateway.mcpUrl, 'attacker', undefined, gateway.auth);
    opened.client(client);
    const pointed = text((await decideIfAsked(gateway, client, 'run_command', { command: ['node', 'common.js'] }, 'reject')).result);
    expect(pointed).toContain('"sandbox\\":\\"bwrap');
    expect(pointed).toContain('refused');
    userCommits(workspace);
    for (const marker of ['PWNED-commondir-hook', 'PWNED-commondir-fsmonitor']) expect(existsSync(join(workspace, marker)), `${marker}: ${pointed}`).toBe(false);
  });

  it.each([
    ['its own index entry', 'entry', [] as string[][], 'removedGitlinks\\":[\\"sub\\"]'],
    ['its own index entry, the index then locked', 'locked', [] as string[][], 'removedGitlinks\\":[\\"sub\\"]'],
    // Moved aside after the script, before the agent's git could list it (see attack-git-nested-repositories.test.ts).
    ["the agent's next git add of its folder", 'none', [['git', 'add', 'sub']], 'movedRepositories\\":[{\\"from\\":\\"sub/.git\\"'],
    ['an entry named so that git will not take it out (git~1)', 'refused', [] as string[][], 'the index was moved aside'],
  ])('a script makes a nested repository whose configuration names a program, listed by %s: the user\'s git status runs nothing of it', async (_label, list, after, reported) => {
    const { workspace, run } = await servedRepository(scope, ['node', 'git'], { 'nested.js': nestedJs(list as 'entry' | 'locked' | 'none' | 'refused'), 'notes.md': 'notes\n' });
    const results = [await run(['node', 'nested.js'])];
    for (const command of after) results.push(await run(command));
    expect(results.join('\n')).toContain(reported);
    userStatus(workspace);
    expect(existsSync(join(workspace, 'PWNED-nested')), results.join('\n')).toBe(false);
  });

  it("two commands at once: the second, which lists again the entry the first's was taken out of, is held to the entries from before both", async () => {
    const { workspace, run } = await servedRepository(scope, ['node'], { 'nested.js': nestedJs('race'), 'relist.js': RELIST_JS });
    const first = run(['node', 'nested.js']);
    // The second starts once the first has listed the entry (entry.json is written then), while the first still runs.
    await expect.poll(() => existsSync(join(workspace, 'entry.json')), { interval: 50, timeout: 20_000 }).toBe(true);
    const results = await Promise.all([first, run(['node', 'relist.js'])]);
    expect(results[0]).toContain('removedGitlinks\\":[\\"sub\\"]');
    expect(results[1], results[1]).toContain('removedGitlinks\\":[\\"sub\\"]');
    expect(execFileSync('git', ['ls-files', '--stage'], { cwd: workspace, encoding: 'utf8' })).not.toContain('160000');
    userStatus(workspace);
    expect(existsSync(join(workspace, 'PWNED-nested')), results.join('\n')).toBe(false);
  });

  it.skipIf(!existsSync('/usr/bin/python3'))("a gitlink written through a memory mapping, which leaves the index file's times as they were, while another command ends: the user's git status runs nothing of it", async () => {
    const { workspace, run } = await servedRepository(scope, ['node', 'git'], { 'prepare.js': MAPPED_PREPARE_JS, 'write.js': MAPPED_WRITE_JS });
    expect(await run(['node', 'prepare.js'])).toContain('same size');
    const writing = run(['node', 'write.js']);
    while (!existsSync(join(workspace, 'armed'))) await new Promise((resolve) => setTimeout(resolve, 50));
    const listing = await run(['git', 'ls-files', '--stage']);
    writeFileSync(join(workspace, 'listed'), '');
    const written = await writing;
    expect(written).toContain('times unchanged: True');
    expect(written).toContain('removedGitlinks\\":[\\"sub\\"]');
    expect(execFileSync('git', ['ls-files', '--stage'], { cwd: workspace, encoding: 'utf8' })).not.toContain('160000');
    userStatus(workspace);
    expect(existsSync(join(workspace, 'PWNED-nested')), [listing, written].join('\n')).toBe(false);
  });

  it.each([['t/hooks/pre-commit'], ['t/config']])("the agent's git writes a staged %s into .git by a prefix joined as a string (checkout-index --prefix=.gi): refused, and the user's git runs nothing of it", async (staged) => {
    const { workspace, run } = await servedRepository(scope, ['node', 'git'], { 'payload.js': STAGED_PAYLOAD_JS });
    const results = [await run(['node', 'payload.js']), await run(['git', 'add', staged]), await run(['git', 'checkout-index', '-f', '--prefix=.gi', staged])];
    expect(results[0]).toContain('staged payload written');
    for (const run of [userStatus, userCommits]) run(workspace);
    expect(readdirSync(workspace).filter((name) => name.startsWith('PWNED')), results.join('\n')).toEqual([]);
    expect(results[2]).toContain('checkout-index --prefix');
  });

  it("the agent's git applies a patch that makes .git/hooks/pre-commit (apply --unsafe-paths): refused, and the user's commit runs nothing", async () => {
    const { workspace, run } = await servedRepository(scope, ['node', 'git'], { 'patch.js': HOOK_PATCH_JS });
    const results = [await run(['node', 'patch.js']), await run(['git', 'apply', '--unsafe-paths', 'change.patch'])];
    expect(results[0]).toContain('patch written');
    userCommits(workspace);
    expect(existsSync(join(workspace, 'PWNED-patch-hook')), results.join('\n')).toBe(false);
    expect(results[1]).toContain('apply --unsafe-paths');
  });

  it.each([
    ["a nested repository's checkout, its work tree in .git/hooks (git -C nested checkout-index -a -f)", ['git', '-C', 'nested', 'checkout-index', '-a', '-f']],
    ['a patch applied to the index through a link to .git that no index holds (git apply --index)', ['git', 'apply', '--index', 'linked.patch']],
  ])("the agent's git writes a hook by %s: the user's commit runs nothing", async (_label, command) => {
    const { workspace, run } = await servedRepository(scope, ['node', 'git'], { 'prepare.js': INTO_GIT_JS });
    const results = [await run(['node', 'prepare.js']), await run(command)];
    expect(results[0]).toContain('prepared');
    userCommits(workspace);
    expect(readdirSync(workspace).filter((name) => name.startsWith('PWNED')), results.join('\n')).toEqual([]);
    expect(existsSync(join(workspace, '.git', 'hooks', 'pre-commit')), results.join('\n')).toBe(false);
  });

  it("the agent's git writes core.fsmonitor with the name and value past a -- (git config -- core.fsmonitor …): refused, and the user's status runs nothing", async () => {
    const { workspace, run } = await servedRepository(scope, ['git'], {});
    const marker = join(workspace, 'PWNED-config-past-dashes');
    const result = await run(['git', 'config', '--', 'core.fsmonitor', `touch ${marker}; false`]);
    userStatus(workspace);
    expect(existsSync(marker), result).toBe(false);
    expect(result).toContain('git config writing configuration');
  });

  it('git itself still works in the repository through the gateway: status, a branch, a commit', async () => {
    const workspace = makeWorkspace({ scope, mode: 'auto', policy: { allowedCommandGlobs: ['git *'], allow: ['Bash(git *)'] } }, { 'notes.md': 'notes\n' });
    execFileSync('git', ['init', '-q'], { cwd: workspace });
    // The user's own identity, set before the agent starts (`git config` through the gateway asks, and `-c` is refused).
    for (const setting of [['user.name', 'a'], ['user.email', 'a@example.com']]) execFileSync('git', ['config', ...setting], { cwd: workspace });
    const gateway = await serveWorkspace(workspace, { env: { HOME: attackHome() } });
    opened.gateway(gateway);
    const { client } = await connectClient(gateway.mcpUrl, 'agent', undefined, gateway.auth);
    opened.client(client);
    const run = async (command: string[]): Promise<string> => text((await decideIfAsked(gateway, client, 'run_command', { command }, 'once')).result);
    expect(await run(['git', 'add', 'notes.md'])).toContain('\\"exitCode\\":0');
    expect(await run(['git', 'commit', '-q', '-m', 'notes'])).toContain('\\"exitCode\\":0');
    expect(await run(['git', 'checkout', '-q', '-b', 'feature'])).toContain('\\"exitCode\\":0');
    expect(await run(['git', 'status', '--short', '--branch'])).toContain('feature');
  });
});
