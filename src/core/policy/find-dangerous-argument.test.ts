import { describe, expect, test } from 'vitest';
import { checkCommand } from './check-command.js';
import { findDangerousArgument } from './find-dangerous-argument.js';
import { gitSubcommandIndex } from './git-danger.js';

/** The glob a user writes to let the model run any git command. */
const anyGit = { commands: [], globs: [['git', '*']] };
const refused = (argv: readonly string[]): boolean => findDangerousArgument(argv) !== undefined;

describe('findDangerousArgument: git forms that run a program', () => {
  // Each of these ran the program with only `['git', '*']` allowed.
  test.each([
    ['difftool -x', ['git', 'difftool', '-y', '-x', 'touch pwned', 'HEAD~1']],
    ['difftool -x attached', ['git', 'difftool', '-xtouch pwned']],
    ['difftool -yx cluster', ['git', 'difftool', '-yx', 'touch pwned']],
    ['difftool -gyxcmd cluster', ['git', 'difftool', '-gyxtouch pwned']],
    ['difftool --extcmd', ['git', 'difftool', '--extcmd', 'touch pwned']],
    ['difftool --extcmd=', ['git', 'difftool', '--extcmd=touch pwned']],
    ['difftool --ext= abbreviation', ['git', 'difftool', '--ext=touch pwned']],
    ['grep --open-files-in-pager=', ['git', 'grep', '--open-files-in-pager=touch pwned', 'b']],
    ['grep --open= abbreviation', ['git', 'grep', '--open=touch pwned', 'b']],
    ['grep -O attached', ['git', 'grep', '-Otouch pwned', 'b']],
    ['grep -nO cluster', ['git', 'grep', '-nOtouch pwned', 'b']],
    ['grep -O alone', ['git', 'grep', '-O', 'b']],
    ['rebase -x', ['git', 'rebase', '-x', 'touch pwned', 'HEAD~1']],
    ['rebase -qx cluster', ['git', 'rebase', '-qx', 'touch pwned', 'HEAD~1']],
    ['rebase -x attached', ['git', 'rebase', '-xtouch pwned', 'HEAD~1']],
    ['rebase --exec', ['git', 'rebase', '--exec', 'touch pwned', 'HEAD~1']],
    ['rebase --exe= abbreviation', ['git', 'rebase', '--exe=touch pwned', 'HEAD~1']],
    ['rebase -x after -C', ['git', '-C', 'repo', 'rebase', '-x', 'touch pwned', 'HEAD~1']],
    ['rebase -x after --git-dir', ['git', '--git-dir', '.git', '--work-tree', '.', 'rebase', '-i', '-x', 'touch pwned']],
    ['bisect run', ['git', 'bisect', 'run', 'touch pwned']],
    ['bisect run after -C', ['git', '-C', 'repo', 'bisect', 'run', 'sh', '-c', 'id']],
    ['submodule foreach', ['git', 'submodule', 'foreach', 'touch pwned']],
    ['submodule --quiet foreach', ['git', 'submodule', '--quiet', 'foreach', '--recursive', 'touch pwned']],
    ['submodule--helper foreach', ['git', 'submodule--helper', 'foreach', 'touch pwned']],
    ['bisect--helper', ['git', 'bisect--helper', '--bisect-run', 'touch pwned']],
    ['remote-ext', ['git', 'remote-ext', 'origin', 'sh -c id']],
    ['clone -c', ['git', 'clone', '-c', 'filter.evil.smudge=touch pwned', 'src', 'dst']],
    ['clone -c attached', ['git', 'clone', '-cfilter.evil.smudge=touch pwned', 'src', 'dst']],
    ['clone -qc cluster', ['git', 'clone', '-qc', 'filter.evil.smudge=touch pwned', 'src', 'dst']],
    ['clone --config', ['git', 'clone', '--config', 'filter.evil.smudge=touch pwned', 'src', 'dst']],
    ['clone --config=', ['git', 'clone', '--config=filter.evil.smudge=touch pwned', 'src', 'dst']],
    ['clone --conf abbreviation', ['git', 'clone', '--conf', 'remote.origin.uploadpack=touch pwned', 'src', 'dst']],
    ['clone --template', ['git', 'clone', '--template', 'hooks-dir', 'src', 'dst']],
    ['clone --template=', ['git', 'clone', '--template=hooks-dir', 'src', 'dst']],
    ['clone --templ= abbreviation', ['git', 'clone', '--templ=hooks-dir', 'src', 'dst']],
    ['clone -u', ['git', 'clone', '-u', 'touch pwned;', 'src', 'dst']],
    ['clone -qu cluster', ['git', 'clone', '-qu', 'touch pwned;', 'src', 'dst']],
    ['clone -u attached', ['git', 'clone', '-utouch pwned;', 'src', 'dst']],
    ['clone --upload-pack', ['git', 'clone', '--upload-pack', 'touch pwned;', 'src', 'dst']],
    ['clone --upload= abbreviation', ['git', 'clone', '--upload=touch pwned;', 'src', 'dst']],
    ['init --template', ['git', 'init', '--template=hooks-dir', 'dst']],
    ['checkout-index --prefix joined as a string', ['git', 'checkout-index', '-f', '--prefix=.gi', 't/hooks/pre-commit']],
    ['checkout-index --prefix, separate value, abbreviated', ['git', 'checkout-index', '-a', '--pre', 'export/']],
    ['merge-index', ['git', 'merge-index', '/bin/sh', '-a']],
    ['apply --unsafe-paths', ['git', 'apply', '--unsafe-paths', 'change.patch']],
    ['apply --unsafe, abbreviated', ['git', 'apply', '--unsafe', 'change.patch']],
    ['fast-import --allow-unsafe-features', ['git', 'fast-import', '--quiet', '--allow-unsafe-features']],
    ['init --separate-git-dir', ['git', '-C', 'lib2', 'init', '-q', '--separate-git-dir=../prepared']],
    ['init --separate-git-dir, separate value, abbreviated', ['git', 'init', '--separate', '../prepared', '.']],
    ['clone --separate-git-dir', ['git', 'clone', '--separate-git-dir', 'prepared', 'src', 'dst']],
    ['init --t abbreviation', ['git', 'init', '--t', 'hooks-dir', 'dst']],
    ['fetch --upload-pack', ['git', 'fetch', '--upload-pack=touch pwned;', '.']],
    ['fetch --upl= abbreviation', ['git', 'fetch', '--upl=touch pwned;', '.']],
    ['pull --upload-pack', ['git', 'pull', '--upload-pack', 'touch pwned;', '.']],
    ['ls-remote --upload-pack', ['git', 'ls-remote', '--upload-pack=touch pwned;', '.']],
    ['push --receive-pack', ['git', 'push', '--receive-pack=touch pwned;', '../bare']],
    ['push --receive= abbreviation', ['git', 'push', '--receive=touch pwned;', '../bare']],
    ['push --exec', ['git', 'push', '--exec=touch pwned;', '../bare']],
    ['archive --remote --exec', ['git', 'archive', '--remote=.', '--exec=touch pwned;', 'HEAD']],
    ['global -c', ['git', '-c', 'core.pager=touch pwned', 'log']],
    ['global -c after -C', ['git', '-C', 'repo', '-c', 'alias.x=!id', 'x']],
    ['global -c attached', ['git', '-ccore.pager=sh', 'log']],
    ['global --config-env', ['git', '--config-env', 'core.pager=PAYLOAD', 'log']],
    ['global --config-env=', ['git', '--config-env=core.pager=PAYLOAD', 'log']],
    ['config --global alias', ['git', 'config', '--global', 'alias.st', '!touch pwned']],
    ['config --gl abbreviation', ['git', 'config', '--gl', 'filter.evil.clean', 'touch pwned']],
    ['config --system', ['git', 'config', '--system', '--add', 'filter.evil.clean', 'touch pwned']],
    ['config --file another config', ['git', 'config', '--file', 'sub/.git/config', 'filter.evil.clean', 'touch pwned']],
    ['config -f', ['git', 'config', '-f', '/home/me/.gitconfig', 'alias.x', '!id']],
    ['config --file= --unset', ['git', 'config', '--file=/home/me/.gitconfig', '--unset', 'core.hooksPath']],
    ['config --global -e', ['git', 'config', '--global', '-e']],
    ['config set --global', ['git', 'config', 'set', '--global', 'alias.x', '!id']],
    // The repository's own configuration names programs too (core.fsmonitor runs at the next git status).
    ['config writes the repository', ['git', 'config', 'core.fsmonitor', 'touch pwned']],
    ['config writes past --', ['git', 'config', '--', 'core.fsmonitor', 'touch pwned']],
    ['submodule foreach past --', ['git', 'submodule', '--quiet', '--', 'foreach', 'touch pwned']],
    ['bisect run past --', ['git', 'bisect', '--', 'run', 'touch', 'pwned']],
    ['config --local writes past --', ['git', 'config', '--local', '--', 'core.fsmonitor', 'touch pwned']],
    ["config writes a submodule's past --", ['git', '-C', 'sub', 'config', '--', 'alias.x', '!id']],
    ['config --local write', ['git', 'config', '--local', 'core.autocrlf', 'false']],
    ['config --add', ['git', 'config', '--add', 'alias.x', '!id']],
    ['config --replace-all', ['git', 'config', '--replace-all', 'core.pager', 'sh']],
    ['config set', ['git', 'config', 'set', 'core.fsmonitor', 'touch pwned']],
    ['config --unset', ['git', 'config', '--unset', 'core.hooksPath']],
    ['config -e', ['git', 'config', '-e']],
    ['config --file write', ['git', 'config', '--file', '.git/config', 'core.pager', 'sh']],
    ['maintenance start', ['git', 'maintenance', 'start']],
    ['maintenance register', ['git', 'maintenance', 'register']],
    ['filter-branch --tree-filter', ['git', 'filter-branch', '--tree-filter', 'touch pwned', 'HEAD']],
    ['filter-branch --msg-filter=', ['git', 'filter-branch', '--msg-filter=touch pwned']],
    ['for-each-repo', ['git', 'for-each-repo', '--config=maintenance.repo', '-c', 'core.pager=sh', 'log']],
    ['instaweb', ['git', 'instaweb', '--httpd=touch pwned']],
    ['daemon --access-hook', ['git', 'daemon', '--access-hook=touch pwned']],
    ['path-qualified git', ['/usr/bin/git', 'rebase', '-x', 'touch pwned']],
  ])('%s is refused', (_label, argv) => {
    expect(refused(argv)).toBe(true);
    if (!argv[0]?.includes('/')) expect(checkCommand(argv, anyGit).ok).toBe(false);
    // An exact allowedCommands entry runs exactly what it says: the person wrote this very argv.
    expect(checkCommand(argv, { commands: [argv], globs: [['git', '*']] })).toEqual({ ok: true, via: 'exact' });
  });

  // The same letters and words where they run nothing stay allowed.
  test.each([
    ['cherry-pick -x', ['git', 'cherry-pick', '-x', 'HEAD~1']],
    ['ls-files -x', ['git', 'ls-files', '-x', '*.o']],
    ['clean -x', ['git', 'clean', '-nx']],
    ['grep -c counts', ['git', 'grep', '-c', 'TODO']],
    ['grep -e with O in the pattern', ['git', 'grep', '-ePOST']],
    ['grep -o only-matching', ['git', 'grep', '-o', 'foo']],
    ['grep --or', ['git', 'grep', '-e', 'a', '--or', '-e', 'b']],
    ['commit -c reuses a message', ['git', 'commit', '-c', 'HEAD']],
    ['rebase -s with x in the strategy', ['git', 'rebase', '-sfix', 'main']],
    ['rebase -X option with x', ['git', 'rebase', '-Xextra', 'main']],
    ['difftool -t with x in the tool', ['git', 'difftool', '-tvimdiffx']],
    ['clone with -b and -o', ['git', 'clone', '-b', 'main', '-o', 'up', 'src', 'dst']],
    ['clone -o with u and c in its value', ['git', 'clone', '-oupstream-copy', 'src', 'dst']],
    ['bisect start', ['git', 'bisect', 'start', 'HEAD', 'HEAD~5']],
    ['bisect good of a revision named run', ['git', 'bisect', 'good', 'run']],
    ['submodule update', ['git', 'submodule', 'update', '--init']],
    ['submodule status', ['git', 'submodule', 'status', '--recursive']],
    ['diff --text is not --textconv', ['git', 'diff', '--text']],
    ['log --oneline', ['git', 'log', '--oneline']],
    ['diff --exit-code', ['git', 'diff', '--exit-code']],
    ['config reads the global value', ['git', 'config', '--global', 'user.name']],
    ['config --global --get', ['git', 'config', '--global', '--get', 'user.email']],
    ['config --list --show-origin', ['git', 'config', '--list', '--show-origin']],
    ['config reads one name', ['git', 'config', 'user.name']],
    ['config reads one name past --', ['git', 'config', '--', 'user.name']],
    ['config --get past --', ['git', 'config', '--get', '--', 'remote.origin.url']],
    ['config get', ['git', 'config', 'get', 'user.name']],
    ['config --file read', ['git', 'config', '--file', '.gitmodules', '--get-regexp', 'path']],
    ['maintenance run', ['git', 'maintenance', 'run', '--task=gc']],
    ['filter-branch --subdirectory-filter', ['git', 'filter-branch', '--subdirectory-filter', 'lib']],
    ['after --', ['git', 'rebase', '--', '-x']],
    ['clone after --', ['git', 'clone', 'src', '--', '-c']],
  ])('%s is allowed', (_label, argv) => {
    expect(findDangerousArgument(argv)).toBeUndefined();
    expect(checkCommand(argv, anyGit)).toEqual({ ok: true, via: 'glob' });
  });

  test('names the form, never the value', () => {
    expect(findDangerousArgument(['git', 'difftool', '-x', 'secret-token'])).toEqual({ program: 'git', form: 'git difftool -x/--extcmd' });
    const check = checkCommand(['git', 'clone', '-c', 'x=secret-token', 'a', 'b'], anyGit);
    expect(check.ok === false && check.detail).toBe('was refused: the argument form git clone -c/--config/--template/--separate-git-dir/-u/--upload-pack can execute or write');
  });

  test('the subcommand is found past the separate values of -c and --config-env too', () => {
    expect(gitSubcommandIndex(['git', '-c', 'x.y=z', 'status'])).toBe(3);
    expect(gitSubcommandIndex(['git', '--config-env', 'x.y=ENV', '-C', 'dir', 'status'])).toBe(5);
    expect(gitSubcommandIndex(['git', '-C', 'dir', '--no-pager', 'log'])).toBe(4);
  });
});
