import { mkdtempSync, readdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from './support/spawn-cli.js';

// A model writes files whose names are legal on Linux (at most 255 bytes) but whose first hundred UTF-16 units
// are not the first hundred bytes: an emoji across the hundredth unit, or a long name in a script of three-byte
// characters. `toolgate call` runs each write as a real process. The host named its temporary file after the first
// hundred units of the target's: the emoji was cut in half, the kernel got U+FFFD for the lone half, the
// descriptor's path read back did not match, and the write was refused as a link that leaves the scope, its
// temporary file left behind in the workspace; the long name made a temporary name past 255 bytes, and the write
// failed as an internal error.

function workspace(): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'toolgate-attack-file-names-')));
  writeFileSync(join(dir, 'toolgate.config.json'), JSON.stringify({ scope: 'workspace-write', mode: 'auto', console: { enabled: false }, policy: { allow: ['Write', 'Edit'] } }));
  return dir;
}

/** What the workspace holds besides the configuration and toolgate's own state. */
const made = (dir: string): string[] => readdirSync(dir).filter((name) => name !== 'toolgate.config.json' && name !== '.toolgate');

describe('attack: a legal file name whose first hundred UTF-16 units are not whole characters, or fill more than a name', () => {
  it.each([
    ['an emoji across the hundredth unit', `${'a'.repeat(99)}\u{1F600}.txt`],
    ['eighty three-byte characters (244 bytes)', `${'文'.repeat(80)}.txt`],
    ['eighty-five three-byte characters (255 bytes)', '文'.repeat(85)],
  ])('%s is written and edited as named, and no temporary file is left', async (_what, name) => {
    const dir = workspace();
    const written = await runCli(['--json', 'call', 'write_file', JSON.stringify({ path: name, content: 'first\n' })], dir);
    expect(written.stdout).toContain('"ok": true');
    expect(written.code).toBe(0);
    const edited = await runCli(['--json', 'call', 'edit_file', JSON.stringify({ path: name, oldText: 'first', newText: 'second' })], dir);
    expect(edited.stdout).toContain('"ok": true');
    expect(readFileSync(join(dir, name), 'utf8')).toBe('second\n');
    expect(made(dir)).toEqual([name]);
  }, 20_000);
});

// The same model names a file where a folder is wanted: a listing of it, a command run in it, a new file below it.
// Nothing changed between the check and the open, yet each was refused as "its target changed after it was checked
// and approved … check the path and call again", which sends a model round the same call again.
describe('attack: a file named where a folder is wanted', () => {
  it.each([
    ['list_directory', { path: 'notes.md' }],
    ['run_command', { command: ['ls'], cwd: 'notes.md' }],
    ['write_file', { path: 'notes.md/inner.txt', content: 'x' }],
  ])('%s is refused as not a directory, and nothing is written', async (tool, args) => {
    const dir = workspace();
    writeFileSync(join(dir, 'notes.md'), 'first\n');
    writeFileSync(join(dir, 'toolgate.config.json'), JSON.stringify({ scope: 'workspace-write', mode: 'auto', console: { enabled: false }, policy: { allowedCommandGlobs: ['ls'], allow: ['Write', 'Read', 'Bash(ls)'] } }));
    const called = await runCli(['--json', 'call', tool, JSON.stringify(args)], dir);
    expect(called.stdout).toContain('"reason": "not_a_directory"');
    expect(readFileSync(join(dir, 'notes.md'), 'utf8')).toBe('first\n');
    expect(made(dir).sort()).toEqual(['notes.md']);
  }, 20_000);
});
