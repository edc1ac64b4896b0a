import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { describe, expect, it } from 'vitest';
import { servedForBlock, type ServedGateway } from './support/serve-gateway.js';

// Under a glob the floor refused `sh -c`, `python3 -c`, `find -exec` and `env -S` as the program, and as the
// command of a wrapper toolgate knows (`nice sh -c …`), but a program it does not know that runs its arguments
// as a command ran them with nothing judged: `setarch x86_64 python3 -c …`, `prlimit sh -c …`, `fakeroot find
// . -exec …`, `strace -f sh -c …`, a shell string handed to `capsh -- -c`. The floor now judges every command
// the argv may run, as a deny reads them, and refuses one it cannot read.

const text = (result: object): string => JSON.stringify((result as { content?: unknown }).content);

/** One gateway for a block's cases, in `auto` under `policy`. */
const servedWith = (policy: object): (() => { gateway: ServedGateway; mcp: Client }) =>
  servedForBlock({ scope: 'workspace-write', mode: 'auto', policy }, { files: { 'notes.md': 'first\n' }, args: ['--no-console'] });

/** Run `command`; whether PWNED appeared in the workspace, and what came back. */
async function ran(opened: { gateway: ServedGateway; mcp: Client }, command: readonly string[]): Promise<{ made: boolean; output: string }> {
  const place = join(opened.gateway.workspace, 'PWNED');
  rmSync(place, { force: true, recursive: true });
  const result = await opened.mcp.callTool({ name: 'run_command', arguments: { command: [...command] } });
  const made = existsSync(place);
  rmSync(place, { force: true, recursive: true });
  return { made, output: text(result) };
}

const TOUCH = 'touch PWNED';

/** Exec-capable forms behind programs toolgate does not know, and behind wrappers it knows around them. */
const INSIDE_UNKNOWN: readonly (readonly string[])[] = [
  ['setarch', 'x86_64', 'python3', '-c', 'open("PWNED","w")'],
  ['setarch', 'x86_64', 'perl', '-e', 'open F, ">PWNED"'],
  ['prlimit', 'sh', '-c', TOUCH],
  ['prlimit', '--nofile=1024', '--', 'sh', '-c', TOUCH],
  ['fakeroot', 'find', '.', '-maxdepth', '0', '-exec', 'touch', 'PWNED', ';'],
  ['strace', '-f', '-qq', '-o', '/dev/null', 'sh', '-c', TOUCH],
  ['linux64', 'sed', '-n', '1e touch PWNED', 'notes.md'],
  ['setpriv', 'env', '-S', TOUCH],
  ['capsh', '--', '-c', `sh -c '${TOUCH}'`],
  ['capsh', '--', '-c', `true; perl -e 'open F, ">PWNED"'`],
  // A wrapper toolgate knows around one it does not.
  ['nice', 'setarch', 'x86_64', 'sh', '-c', TOUCH],
  ['timeout', '5', 'prlimit', 'sh', '-c', TOUCH],
  ['nice', '-n', '5', 'timeout', '5', 'setarch', 'x86_64', 'perl', '-e', 'open F, ">PWNED"'],
  // The inner program by path, quoted, escaped or behind env.
  ['setarch', 'x86_64', '/bin/sh', '-c', TOUCH],
  ['setarch', 'x86_64', 'env', 'sh', '-c', TOUCH],
  ['setarch', 'x86_64', 'env', '--', 'sh', '-c', TOUCH],
  ['setarch', 'x86_64', 'env', 'BASH_ENV=x', 'bash', '-c', TOUCH],
  ['setarch', 'x86_64', 'nice', 'sh', '-ec', TOUCH],
  ['capsh', '--', '-c', `'sh' -c '${TOUCH}'`],
  ['capsh', '--', '-c', `s\\h -c '${TOUCH}'`],
  ['capsh', '--', '-c', `exec /bin/sh -c '${TOUCH}'`],
  ['setarch', 'x86_64', 'xargs', '-a', 'notes.md', 'touch', 'PWNED'],
];

/** What the shell alone learns: a program it works out, code it reads from its input. */
const CUT: readonly (readonly string[])[] = [
  ['capsh', '--', '-c', `a=sh; $a -c '${TOUCH}'`],
  ['capsh', '--', '-c', `$(echo sh) -c '${TOUCH}'`],
  ['capsh', '--', '-c', `echo '${TOUCH}' | sh`],
  ['setarch', 'x86_64', 'sh', '-c', `a=touch; $a PWNED`],
  // A string with no blank and no operator is still a command line: the shell splits the words it expands.
  ['capsh', '--', '-c', `perl\${IFS}-e\${IFS}'system"touch","PWNED"'`],
  ['capsh', '--', '-c', `perl$IFS-e$IFS'system"touch","PWNED"'`],
  ['capsh', '--', '-c', `{perl,-e,'system"touch","PWNED"'}`],
];

describe('attack: an exec-capable form inside a program the floor does not know, under `*`', () => {
  const opened = servedWith({ allowedCommandGlobs: ['*'], allow: ['Bash(*)'] });

  it.each([...INSIDE_UNKNOWN, ...CUT].map((command) => [command]))('%j is refused by the floor and runs nothing', async (command) => {
    const { made, output } = await ran(opened(), command);
    expect(made, output).toBe(false);
    expect(output).toContain('was refused: ');
  });

  it('a program it does not know still runs a command with no such form', async () => {
    expect((await ran(opened(), ['setarch', 'x86_64', 'cat', 'notes.md'])).output).toContain('first');
    expect((await ran(opened(), ['prlimit', '--nofile=1024', 'wc', '-l', 'notes.md'])).output).toContain('1');
  });
});

describe('attack: an exec-capable form inside the program a glob names', () => {
  const opened = servedWith({ allowedCommandGlobs: ['setarch *', 'prlimit *', 'fakeroot *'], allow: ['Bash(setarch:*)', 'Bash(prlimit:*)', 'Bash(fakeroot:*)'] });

  it.each([
    [['setarch', 'x86_64', 'sh', '-c', TOUCH]],
    [['prlimit', 'python3', '-c', 'open("PWNED","w")']],
    [['fakeroot', 'find', '.', '-maxdepth', '0', '-exec', 'touch', 'PWNED', ';']],
  ])('%j is refused by the floor and runs nothing', async (command) => {
    const { made, output } = await ran(opened(), command);
    expect(made, output).toBe(false);
    expect(output).toContain('in a command its arguments may run');
  });
});
