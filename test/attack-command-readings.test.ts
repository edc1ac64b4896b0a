import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { describe, expect, it } from 'vitest';
import { servedForBlock, type ServedGateway } from './support/serve-gateway.js';

// The operator lets the model run what it likes, `Bash(*)` in auto, but never `touch` and never `npm exec`, by a
// Claude Code rule, and never `mkdir`, by an argv rule. A deny read only the command as spelled and the commands of
// the wrappers toolgate knows: an argv rule not even those (`nice mkdir x` ran), and a program toolgate does not
// know runs its arguments as a command just the same (`setarch x86_64 touch x`, `prlimit touch x`, `setpriv`,
// `fakeroot`, `strace -f`, a shell string handed to `capsh -- -c`), as does `npx -c`, npm exec by another name. Each
// ran with nobody asked. A deny or ask now reads every place in the argv a command may start, and the commands of
// a shell string an argument holds.

const text = (result: object): string => JSON.stringify((result as { content?: unknown }).content);

/** One gateway for a block's cases, in `auto` under `policy`. */
const servedWith = (policy: object): (() => { gateway: ServedGateway; mcp: Client }) =>
  servedForBlock({ scope: 'workspace-write', mode: 'auto', policy }, { files: { 'notes.md': 'first\n' }, args: ['--no-console'] });

/** Run `command`; whether `marker` appeared in the workspace, and what came back. */
async function ran(opened: { gateway: ServedGateway; mcp: Client }, command: readonly string[], marker: string): Promise<{ made: boolean; output: string }> {
  const place = join(opened.gateway.workspace, marker);
  rmSync(place, { force: true, recursive: true });
  const result = await opened.mcp.callTool({ name: 'run_command', arguments: { command: [...command] } });
  const made = existsSync(place);
  rmSync(place, { force: true, recursive: true });
  return { made, output: text(result) };
}

const SHELL_STRINGS: readonly (readonly string[])[] = [
  ['capsh', '--', '-c', 'touch PWNED'],
  ['capsh', '--', '-c', 'true; t\\ouch PWNED'],
  ['capsh', '--', '-c', 'true && nice mkdir PWNED'],
];

describe('attack: a denied command run through a program that runs its arguments', () => {
  const opened = servedWith({
    allowedCommandGlobs: ['*'],
    // Exact entries, which the floor runs as they say (under a glob it refuses npx -c and capsh's shell outright): only
    // the deny stands between the model and their shell strings.
    allowedCommands: [['npx', '-c', 'touch PWNED'], ...SHELL_STRINGS, ['capsh', '--', '-c', 'echo touch']],
    allow: ['Bash(*)'],
    deny: ['Bash(touch:*)', 'Bash(npm exec:*)'],
    rules: [{ tool: 'run_command', decision: 'deny', match: { argv: ['mkdir', '*'] } }],
  });

  const commands: readonly (readonly string[])[] = [
    // The wrappers toolgate knows, under an argv rule.
    ['nice', 'mkdir', 'PWNED'],
    ['timeout', '5', 'mkdir', 'PWNED'],
    ['nohup', 'mkdir', 'PWNED'],
    ['stdbuf', '-o0', 'mkdir', 'PWNED'],
    ['setsid', '-w', 'mkdir', 'PWNED'],
    ['time', '-p', 'mkdir', 'PWNED'],
    // Programs it does not know, under either kind of rule.
    ['setarch', 'x86_64', 'mkdir', 'PWNED'],
    ['setarch', 'x86_64', 'touch', 'PWNED'],
    ['linux64', 'touch', 'PWNED'],
    ['prlimit', '--nofile=1024', 'touch', 'PWNED'],
    ['setpriv', 'touch', 'PWNED'],
    ['fakeroot', 'touch', 'PWNED'],
    ['strace', '-f', '-qq', '-o', '/dev/null', 'touch', 'PWNED'],
    ['prlimit', '/usr/bin/touch', 'PWNED'],
    // A shell string an argument holds, its command first or after an operator.
    ...SHELL_STRINGS,
    // npx is npm exec.
    ['npx', '-c', 'touch PWNED'],
  ];

  it.each(commands.map((command) => [command]))('%j is refused by the deny and runs nothing', async (command) => {
    const { made, output } = await ran(opened(), command, 'PWNED');
    expect(made, output).toBe(false);
    expect(output).toContain('refused by policy rule');
  });

  it('an ordinary command still runs, and so does one that names the denied program nowhere a command starts', async () => {
    expect((await ran(opened(), ['setarch', 'x86_64', 'cat', 'notes.md'], 'PWNED')).output).toContain('first');
    expect((await ran(opened(), ['capsh', '--', '-c', 'echo touch'], 'PWNED')).output).toContain('touch');
  });
});

describe('attack: a denied command a shell string runs after a prefix, or spells through an expansion', () => {
  // A shell string was read from each command's first word only: `exec touch x`, `command touch x`, `x=1 touch x`,
  // `2>/dev/null touch x`, `{ touch x; }` and `! touch x` ran the denied touch as the second word, and `$a x`,
  // `t${x}ouch x` and `/usr/bin/tou?h x` named it only once the shell expanded them. A shell string past the depth
  // the readings go was not read at all.
  const scripts = [
    'exec touch PWNED',
    'exec -a x touch PWNED',
    'command touch PWNED',
    'command -p touch PWNED',
    'builtin eval touch PWNED',
    'eval touch PWNED',
    'x=1 touch PWNED',
    '2>/dev/null touch PWNED',
    '>/dev/null touch PWNED',
    '{ touch PWNED; }',
    '! touch PWNED',
    'if true; then touch PWNED; fi',
    'a=touch; $a PWNED',
    'a=touch; exec -a x $a PWNED',
    'a=touch; exec -a x -c $a PWNED',
    'a=touch; exec -c -a x $a PWNED',
    'a=touch; coproc n { $a PWNED; }; wait',
    'a=touch; function f { $a PWNED; }; f',
    't${x}ouch PWNED',
    "$'touch' PWNED",
    '/usr/bin/tou?h PWNED',
    `sh -c "sh -c 'sh -c \\"sh -c \\\\\\"touch PWNED\\\\\\"\\"'"`,
  ];
  // Exact entries, which the floor runs as written (under the glob alone it refuses a string it cannot read): only the deny judges them.
  const control = 'echo touch $HOME; [ -f notes.md ] && cat notes.md';
  const opened = servedWith({ allowedCommandGlobs: ['*'], allowedCommands: [...scripts, control].map((script) => ['capsh', '--', '-c', script]), allow: ['Bash(*)'], deny: ['Bash(touch:*)'] });

  it.each(scripts)('capsh -c %j is refused by the deny and runs nothing', async (script) => {
    const { made, output } = await ran(opened(), ['capsh', '--', '-c', script], 'PWNED');
    expect(made, output).toBe(false);
    expect(output).toContain('refused by policy rule');
  });

  it('a shell string that names touch nowhere a command starts still runs', async () => {
    expect((await ran(opened(), ['capsh', '--', '-c', control], 'PWNED')).output).toContain('first');
  });
});

const CONTROL = 'x=$(cat notes.md); cd . && echo "$x"';

describe('attack: a denied command a shell string runs through a program toolgate does not know, or hands over unread', () => {
  // Inside a shell string only a command's first word was read: `setarch x86_64 touch x`, `prlimit touch x`,
  // `fakeroot mkdir x`, `find . -exec touch {} +` and `hash -p /usr/bin/touch t` ran the denied command as a later
  // word. `coproc n $a x` and `prlimit $a x` ran a program the shell worked out; `$(echo touch) x` named it by a
  // substitution; and `echo touch x | sh`, `source <(…)` and an alias handed the shell code no word of the string holds.
  const scripts = [
    'setarch x86_64 touch PWNED',
    'true; prlimit touch PWNED',
    'fakeroot mkdir PWNED',
    'exec setarch x86_64 mkdir PWNED',
    "sh -c 'setarch x86_64 touch PWNED'",
    'find . -maxdepth 0 -exec touch PWNED +',
    'hash -p /usr/bin/touch t; t PWNED',
    'a=touch; coproc setarch x86_64 $a PWNED; wait',
    'a=touch; prlimit $a PWNED',
    '$(echo touch) PWNED',
    '`echo touch` PWNED',
    't$(echo ouch) PWNED',
    'echo touch PWNED | sh',
    'echo touch PWNED | bash -s',
    'bash <(echo touch PWNED)',
    'source <(echo touch PWNED)',
    '. <(echo touch PWNED)',
    'shopt -s expand_aliases; alias t=touch; t PWNED',
  ];
  // Exact entries, which the floor runs as written (under the glob alone it refuses `find -exec` and a string it cannot read): only the deny judges them.
  const opened = servedWith({
    allowedCommandGlobs: ['*'],
    allowedCommands: [...scripts, CONTROL].map((script) => ['capsh', '--', '-c', script]),
    allow: ['Bash(*)'],
    deny: ['Bash(touch:*)'],
    rules: [{ tool: 'run_command', decision: 'deny', match: { argv: ['mkdir', '*'] } }],
  });

  it.each(scripts)('capsh -c %j is refused by the deny and runs nothing', async (script) => {
    const { made, output } = await ran(opened(), ['capsh', '--', '-c', script], 'PWNED');
    expect(made, output).toBe(false);
    expect(output).toContain('refused by policy rule');
  });

  it('a shell string whose programs run no argument, or read a substitution as an argument, still runs', async () => {
    expect((await ran(opened(), ['capsh', '--', '-c', CONTROL], 'PWNED')).output).toContain('first');
  });
});

describe('attack: npx under a glob of its own', () => {
  const opened = servedWith({ allowedCommandGlobs: ['npx *'], allow: ['Bash(npx:*)'] });

  it.each([[['npx', '-c', 'touch PWNED']], [['npx', '--call=touch PWNED']], [['npx', '-y', '-c', 'touch PWNED']]])('%j is refused by the floor as npm exec is', async (command) => {
    const { made, output } = await ran(opened(), command, 'PWNED');
    expect(made, output).toBe(false);
    expect(output).toContain('npm exec/x');
  });
});

describe('attack: make and gdb run code their arguments hold', () => {
  // Under `Bash(*)` with `touch` denied, `make --eval` and gdb's `-ex 'shell …'` ran the denied command: the code is a
  // makefile's text or a gdb command, no argv a deny reads. Both are exec forms now, refused under any glob.
  const opened = servedWith({ allowedCommandGlobs: ['*'], allow: ['Bash(*)'], deny: ['Bash(touch:*)'] });

  it.each([
    [['make', '--eval=$(shell touch PWNED)', '-f', '/dev/null']],
    [['make', '-f', '/dev/null', '-E', '$(shell touch PWNED)']],
    [['make', '-sE$(shell touch PWNED)', '-f', '/dev/null']],
    [['make', '--ev', '$(shell touch PWNED)', '-f', '/dev/null']],
    [['gdb', '-batch', '-ex', 'shell touch PWNED']],
    [['gdb', '-batch', '--eval-command=shell touch PWNED']],
    [['gdb', '-batch', '-iex', 'shell touch PWNED']],
    [['gdb', '-batch', '--init-eval=shell touch PWNED']],
  ])('%j is refused by the floor and runs nothing', async (command) => {
    const { made, output } = await ran(opened(), command, 'PWNED');
    expect(made, output).toBe(false);
    expect(output).toMatch(/make --eval|gdb -ex/);
  });

  it('make and gdb with no such form still run', async () => {
    expect((await ran(opened(), ['make', '-s', '-f', '/dev/null', '--version'], 'PWNED')).output).toContain('GNU Make');
  });
});
