import { describe, expect, test } from 'vitest';
import { checkCommand, type CommandAllowlist } from './check-command.js';
import { unwrapCommand, WRAPPER_NAMES } from './exec-wrappers.js';

/** Every wrapper allowed by a glob, and the programs they might run. */
const allowlist: CommandAllowlist = {
  commands: [['npm', 'test'], ['sh', '-c', 'make']],
  globs: [...WRAPPER_NAMES.map((name) => [name, '*']), ['sh', '*'], ['python', '*'], ['python3', '*'], ['rg', '*'], ['git', '*'], ['ls', '*'], ['awk', '*'], ['tar', '*']],
};
const decide = (argv: readonly string[]) => checkCommand(argv, allowlist);

describe('exec wrappers are unwrapped and the wrapped command judged on its own', () => {
  // Each ran its payload with only the wrapper and the payload's program allowed by globs.
  test.each([
    ['env sh -c', ['env', 'sh', '-c', 'id']],
    ['env -- sh -c', ['env', '--', 'sh', '-c', 'id']],
    ['env FOO=1 sh -c', ['env', 'FOO=1', 'sh', '-c', 'id']],
    ['env assignment before an allowed command', ['env', 'LD_PRELOAD=/tmp/x.so', 'ls']],
    ['env -i', ['env', '-i', 'ls']],
    ['env -u unsets the host hardening', ['env', '-u', 'GIT_CONFIG_COUNT', 'ls']],
    ['env -uNAME attached', ['env', '-uGIT_CONFIG_COUNT', 'ls']],
    ['env --unset= abbreviated', ['env', '--uns=GIT_CONFIG_COUNT', 'ls']],
    ['env -S re-splits a string', ['env', '-S', 'sh -c id']],
    ['env --split-string', ['env', '--split-string=sh -c id']],
    ['env -C changes directory', ['env', '-C', '/', 'ls']],
    ['env - (as -i)', ['env', '-', 'ls']],
    ['xargs sh -c', ['xargs', 'sh', '-c', 'id']],
    ['xargs -0 sh -c', ['xargs', '-0', 'sh', '-c', 'id']],
    ['xargs -I {} sh -c', ['xargs', '-I', '{}', 'sh', '-c', 'id']],
    ['xargs -n1 -P4 sh -c', ['xargs', '-n1', '-P4', 'sh', '-c', 'id']],
    ['xargs -a reads arguments from a file', ['xargs', '-a', 'args.txt', 'rg']],
    ['xargs --arg-file', ['xargs', '--arg-file=args.txt', 'rg']],
    ['nice python -c', ['nice', 'python', '-c', 'print(1)']],
    ['nice -n5 python -c', ['nice', '-n5', 'python', '-c', 'print(1)']],
    ['nice -n 5 python -c', ['nice', '-n', '5', 'python', '-c', 'print(1)']],
    ['nice -5 python -c', ['nice', '-5', 'python', '-c', 'print(1)']],
    ['nice --adjustment=5 sh -c', ['nice', '--adj=5', 'sh', '-c', 'id']],
    ['nohup sh -c', ['nohup', 'sh', '-c', 'id']],
    ['timeout 5 sh -c', ['timeout', '5', 'sh', '-c', 'id']],
    ['timeout -s KILL 5 sh -c', ['timeout', '-s', 'KILL', '5', 'sh', '-c', 'id']],
    ['timeout -sKILL -k1 5 sh -c', ['timeout', '-sKILL', '-k1', '5', 'sh', '-c', 'id']],
    ['timeout --signal=KILL 5 sh -c', ['timeout', '--signal=KILL', '--preserve-status', '5', 'sh', '-c', 'id']],
    ['stdbuf -oL sh -c', ['stdbuf', '-oL', 'sh', '-c', 'id']],
    ['ionice -c3 sh -c', ['ionice', '-c3', 'sh', '-c', 'id']],
    ['ionice -p acts on a process', ['ionice', '-c3', '-p', '1']],
    ['setsid sh -c', ['setsid', '-f', 'sh', '-c', 'id']],
    ['chrt -b 0 sh -c', ['chrt', '-b', '0', 'sh', '-c', 'id']],
    ['chrt -p acts on a process', ['chrt', '-p', '5', '1']],
    ['taskset 1 sh -c', ['taskset', '1', 'sh', '-c', 'id']],
    ['taskset -c 0 sh -c', ['taskset', '-c', '0', 'sh', '-c', 'id']],
    ['taskset -p acts on a process', ['taskset', '-p', '1', '1']],
    ['flock f sh -c', ['flock', 'lock', 'sh', '-c', 'id']],
    ['flock f -c shell string', ['flock', 'lock', '-c', 'id']],
    ['flock -c before the file', ['flock', '-c', 'id', 'lock']],
    ['time sh -c', ['time', 'sh', '-c', 'id']],
    ['time -o writes a file', ['time', '-o', '/tmp/x', 'ls']],
    ['sudo sh -c', ['sudo', 'sh', '-c', 'id']],
    ['sudo -u root sh -c', ['sudo', '-u', 'root', 'sh', '-c', 'id']],
    ['sudo -s', ['sudo', '-s', 'ls']],
    ['sudo -i', ['sudo', '-i']],
    ['sudo -E', ['sudo', '-E', 'ls']],
    ['sudo --preserve-env=', ['sudo', '--preserve-env=PATH', 'ls']],
    ['sudo -e edits files', ['sudo', '-e', '/etc/passwd']],
    ['sudo -D changes directory', ['sudo', '-D', '/', 'ls']],
    ['sudo FOO=1', ['sudo', 'LD_PRELOAD=/tmp/x.so', 'ls']],
    ['doas sh -c', ['doas', 'sh', '-c', 'id']],
    ['doas -s', ['doas', '-s']],
    ['su -c', ['su', '-c', 'id']],
    ['su root -c (options after the user)', ['su', 'root', '-c', 'id']],
    ['su -s names a program', ['su', '-s', '/tmp/evil', 'root']],
    ['su with arguments for the shell', ['su', '-', 'root', 'script.sh']],
    ['chroot', ['chroot', '/', 'ls']],
    ['unshare -r sh -c', ['unshare', '-r', 'sh', '-c', 'id']],
    ['unshare with no command runs a shell', ['unshare', '-r']],
    ['unshare --root', ['unshare', '--root=/tmp/x', 'ls']],
    ['nsenter -t 1 -m sh -c', ['nsenter', '-t', '1', '-m', 'sh', '-c', 'id']],
    ['nsenter with no command runs a shell', ['nsenter', '-t', '1', '-m']],
    ['script -c', ['script', '-c', 'id', '/dev/null']],
    ['script', ['script', '-q', 'out']],
    ['watch without -x', ['watch', 'ls']],
    ['watch -x sh -c', ['watch', '-x', 'sh', '-c', 'id']],
    ['busybox sh -c', ['busybox', 'sh', '-c', 'id']],
    ['busybox --install', ['busybox', '--install', '-s', '/tmp/bin']],
    ['wrapped exec forms of the table', ['timeout', '5', 'tar', '--to-command=id', '-xf', 'a.tar']],
    ['wrapped awk system()', ['nice', 'awk', 'BEGIN{system("id")}']],
    ['wrappers in wrappers', ['nice', '-n', '5', 'timeout', '5', 'env', 'xargs', 'sh', '-c', 'id']],
    ['a wrapped program not allowed', ['timeout', '5', 'curl', 'https://example.com']],
    ['a wrapped path-qualified program', ['nice', '/tmp/evil']],
    ['a wrapped git (not hardened by the host)', ['timeout', '5', 'git', 'status']],
    ['a wrapped path-qualified git', ['env', '/usr/bin/git', 'status']],
    ['an option where the command should be', ['timeout', '5', '--', 'ls']],
    ['an unknown wrapper option', ['timeout', '--frobnicate', '5', 'ls']],
    ['an ambiguous wrapper option', ['env', '--i', 'ls']],
    ['a missing wrapper value', ['timeout', '-s']],
    ['too many wrappers', [...Array.from({ length: 9 }, () => 'nohup'), 'ls']],
    ['a version-suffixed interpreter inside', ['nice', 'python3', '-Ic', 'print(1)']],
  ])('%s is refused', (_label, argv) => {
    expect(decide(argv).ok).toBe(false);
  });

  test.each([
    ['timeout 5 npm test (an exact entry inside)', ['timeout', '5', 'npm', 'test']],
    ['nice sh -c make (an exact entry inside)', ['nice', 'sh', '-c', 'make']],
    ['env rg', ['env', 'rg', 'TODO']],
    ['env -v -0 rg', ['env', '-v', '-0', 'rg', 'TODO']],
    ['xargs rg', ['xargs', '-0', '-r', 'rg', 'TODO']],
    ['xargs alone runs echo', ['xargs']],
    ['nice alone prints the niceness', ['nice']],
    ['nice -n -5 ls', ['nice', '-n', '-5', 'ls', '-la']],
    ['timeout -k 1 5 python script', ['timeout', '-k', '1', '5', 'python3', 'script.py']],
    ['stdbuf -oL -eL rg', ['stdbuf', '-oL', '-eL', 'rg', 'x']],
    ['ionice -c 3 ls', ['ionice', '-c', '3', 'ls']],
    ['setsid -w ls', ['setsid', '-w', 'ls']],
    ['chrt -i 0 ls', ['chrt', '-i', '0', 'ls']],
    ['taskset -c 0-3 ls', ['taskset', '-c', '0-3', 'ls']],
    ['flock -n lock ls', ['flock', '-n', 'lock', 'ls']],
    ['time ls', ['time', '-p', 'ls']],
    ['sudo -n -u me ls', ['sudo', '-n', '-u', 'me', 'ls']],
    ['doas -u me ls', ['doas', '-u', 'me', 'ls']],
    ['su - root (runs nothing)', ['su', '-', 'root']],
    ['unshare -rn ls', ['unshare', '-rn', 'ls']],
    ['nsenter -t 1 -n ls', ['nsenter', '-t', '1', '-n', 'ls']],
    // A long name that is also the start of another (`--user`, `--user-parent`) is that option, as getopt_long reads it.
    ['nsenter --user ls', ['nsenter', '-t', '1', '--user', 'ls']],
    ['unshare --map-user= ls', ['unshare', '--map-user=1000', '-r', 'ls']],
    ['watch -x -n 1 ls', ['watch', '-x', '-n', '1', 'ls']],
    ['busybox ls', ['busybox', 'ls', '-l']],
    ['busybox tar list', ['busybox', 'tar', '-tf', 'a.tar']],
    ['nested wrappers', ['nice', 'timeout', '5', 'stdbuf', '-oL', 'rg', 'TODO']],
  ])('%s is allowed', (_label, argv) => {
    expect(decide(argv)).toEqual({ ok: true, via: 'glob' });
  });

  test('an exact entry for the whole wrapper argv runs as it is', () => {
    const argv = ['timeout', '5', 'git', 'status'];
    expect(checkCommand(argv, { commands: [argv], globs: [] })).toEqual({ ok: true, via: 'exact' });
    expect(checkCommand(argv, { commands: [['git', 'status']], globs: [['timeout', '*']] }).ok).toBe(false);
  });

  test('the wrapped command must itself be allowed', () => {
    const check = checkCommand(['timeout', '5', 'sh', '-c', 'id'], { commands: [], globs: [['timeout', '*']] });
    expect(check).toEqual({ ok: false, detail: 'was refused: the command is not in the allowed commands (in the command timeout runs)' });
  });

  test('unwrapCommand reads the wrapper with its own grammar', () => {
    expect(unwrapCommand(['timeout', '-s', 'KILL', '5', 'make', '-j4'])).toEqual({ kind: 'runs', wrapper: 'timeout', argv: ['make', '-j4'] });
    expect(unwrapCommand(['env', '--', 'make'])).toEqual({ kind: 'runs', wrapper: 'env', argv: ['make'] });
    expect(unwrapCommand(['flock', '-w', '5', 'lock', 'make'])).toEqual({ kind: 'runs', wrapper: 'flock', argv: ['make'] });
    expect(unwrapCommand(['nohup'])).toEqual({ kind: 'runs-nothing' });
    expect(unwrapCommand(['make', 'all'])).toBeUndefined();
    expect(unwrapCommand(['env', '-S', 'secret-token'])).toMatchObject({ kind: 'refused' });
    expect(JSON.stringify(unwrapCommand(['env', '-S', 'secret-token']))).not.toContain('secret-token');
  });
});
