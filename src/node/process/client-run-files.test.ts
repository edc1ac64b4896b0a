import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { claudeSettingsCommands, clientRunFiles, placesNamedBy } from './client-run-files.js';

const made: string[] = [];
afterEach(() => {
  for (const folder of made.splice(0)) rmSync(folder, { recursive: true, force: true });
});

/** A workspace holding `files` (each with its content). */
function workspace(files: readonly string[] = []): string {
  const created = realpathSync(mkdtempSync(path.join(tmpdir(), 'toolgate-client-run-files-')));
  made.push(created);
  for (const file of files) write(created, file, `${file}\n`);
  return created;
}

function write(root: string, file: string, content: string): void {
  mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
  writeFileSync(path.join(root, file), content);
}

const hooks = (...commands: string[]): object => ({ hooks: { PostToolUse: [{ matcher: 'Edit|Write', hooks: commands.map((command) => ({ type: 'command', command })) }] } });

describe('claudeSettingsCommands', () => {
  it('takes the command of every hook of every event, the status line\'s and the helpers\'', () => {
    const settings = {
      hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'a.sh' }, { type: 'command', command: 'b.sh' }] }], Stop: [{ hooks: [{ type: 'command', command: 'c.sh' }] }] },
      statusLine: { type: 'command', command: 'node status.js' },
      apiKeyHelper: 'key.sh',
      otelHeadersHelper: 'headers.sh',
    };
    expect(claudeSettingsCommands(settings).sort()).toEqual(['a.sh', 'b.sh', 'c.sh', 'headers.sh', 'key.sh', 'node status.js']);
  });

  it('passes over what is not of that shape, and names nothing for settings that are not an object', () => {
    const settings = { hooks: { PreToolUse: { hooks: [{ command: 'not-a-list.sh' }] }, Stop: [null, 'x', { hooks: 'y' }, { hooks: [{ type: 'prompt', prompt: 'p' }, { command: 7 }, { command: 'kept.sh' }] }] }, statusLine: 'status.sh', apiKeyHelper: ['key.sh'] };
    expect(claudeSettingsCommands(settings)).toEqual(['kept.sh']);
    for (const settings of [undefined, null, 'hooks', [hooks('a.sh')], 3]) expect(claudeSettingsCommands(settings)).toEqual([]);
  });
});

describe('placesNamedBy', () => {
  it('takes each word that names an entry of the workspace, from the workspace, with $CLAUDE_PROJECT_DIR expanded', () => {
    const root = workspace(['.claude/hooks/format.sh', 'scripts/check.js', '.claude/hooks/x.py', 'lint.json', 'tools/py/__main__.py']);
    const at = (file: string): string => path.join(root, file);
    expect(placesNamedBy('"$CLAUDE_PROJECT_DIR"/.claude/hooks/format.sh', root)).toEqual([at('.claude/hooks/format.sh')]);
    expect(placesNamedBy('${CLAUDE_PROJECT_DIR}/.claude/hooks/format.sh --fix', root)).toEqual([at('.claude/hooks/format.sh')]);
    expect(placesNamedBy('node scripts/check.js && python3 .claude/hooks/x.py', root)).toEqual([at('scripts/check.js'), at('.claude/hooks/x.py')]);
    // A folder a program runs (`python3 tools/py` runs its `__main__.py`), and a value after `=`.
    expect(placesNamedBy('python3 tools/py', root)).toEqual([at('tools/py')]);
    expect(placesNamedBy('npx eslint --config=lint.json', root)).toEqual([at('lint.json')]);
  });

  it('leaves out what does not exist, what lies outside the workspace, and the workspace itself', () => {
    const root = workspace(['scripts/check.js']);
    expect(placesNamedBy('npx prettier --write "$1" scripts/missing.js', root)).toEqual([]);
    expect(placesNamedBy(`cat /etc/hostname ../${path.basename(root)}/scripts/check.js`, root)).toEqual([path.join(root, 'scripts/check.js')]);
    expect(placesNamedBy(`cat ../ ${path.dirname(root)} /etc/hostname`, root)).toEqual([]);
    expect(placesNamedBy('cd "$CLAUDE_PROJECT_DIR" && ls . "$CLAUDE_PROJECT_DIR"', root)).toEqual([]);
    // A word no name can be (an inline script of 300 characters) names nothing, and throws nothing.
    expect(placesNamedBy(`node -e ${'x'.repeat(300)} scripts/check.js`, root)).toEqual([path.join(root, 'scripts/check.js')]);
  });

  it('reads a relative word from a folder the command goes on in too, which is itself no place', () => {
    const root = workspace(['app/run.sh', 'run.sh', 'app/lib/x.sh']);
    expect(placesNamedBy('cd app && ./run.sh lib/x.sh', root).sort()).toEqual([path.join(root, 'app/lib/x.sh'), path.join(root, 'app/run.sh'), path.join(root, 'run.sh')]);
  });

  it('names no place that leads to the workspace or a folder above it, whatever link a command made under a word of the hook', () => {
    const root = workspace(['src/a.ts', 'lib/x.js']);
    symlinkSync('.', path.join(root, 'prettier'));
    symlinkSync('..', path.join(root, 'up'));
    symlinkSync('lib', path.join(root, 'eslint'));
    expect(placesNamedBy("jq -r '.tool_input.file_path' | xargs npx prettier --write", root)).toEqual([]);
    expect(placesNamedBy('up/format.sh up', root)).toEqual([]);
    // A link to a folder inside is held as what it leads to, as any place is.
    expect(placesNamedBy('npx eslint --fix', root)).toEqual([path.join(root, 'eslint')]);
  });

  it('reads a command given as one word again (`sh -c`), within a bound', () => {
    const root = workspace(['a.sh', 'b/c.sh']);
    expect(placesNamedBy(`sh -c './a.sh; bash -c "b/c.sh"'`, root)).toEqual([path.join(root, 'a.sh'), path.join(root, 'b/c.sh')]);
    const nested = (depth: number): string => (depth === 0 ? './a.sh' : `sh -c ${JSON.stringify(nested(depth - 1))}`);
    expect(placesNamedBy(nested(4), root)).toEqual([path.join(root, 'a.sh')]);
    // Past the bound a word is no longer split as a command, but the paths it holds are still read.
    expect(placesNamedBy(nested(6), root)).toEqual([path.join(root, 'a.sh')]);
  });

  it('reads a path whose start is an expansion it cannot know, a path inside code, and a Python module', () => {
    const root = workspace(['scripts/format.sh', 'lib/x.js', 'tools/__init__.py', 'tools/notify.py', 'pkg/cli/__main__.py']);
    const at = (file: string): string => path.join(root, file);
    for (const command of [
      '"${CLAUDE_PROJECT_DIR:-.}"/scripts/format.sh',
      '"${CLAUDE_PROJECT_DIR:+$CLAUDE_PROJECT_DIR}"/scripts/format.sh',
      '"$(git rev-parse --show-toplevel)"/scripts/format.sh',
      'sh `pwd`/scripts/format.sh',
      'sh $HOME/project/scripts/format.sh',
    ]) {
      expect(placesNamedBy(command, root), command).toContain(at('scripts/format.sh'));
    }
    expect(placesNamedBy(`node -e "require('./lib/x.js')"`, root)).toContain(at('lib/x.js'));
    expect(placesNamedBy('node -r./lib/x.js', root)).toContain(at('lib/x.js'));
    expect(placesNamedBy('cd "$CLAUDE_PROJECT_DIR" && python3 -m tools.notify', root)).toContain(at('tools/notify.py'));
    expect(placesNamedBy('python3 -m pkg.cli', root)).toContain(at('pkg/cli'));
  });
});

describe('clientRunFiles', () => {
  it('names what the project\'s and the local settings run, and each change to them or to what exists', () => {
    const root = workspace(['.claude/hooks/format.sh', 'scripts/status.js', 'tools/late.sh']);
    write(root, '.claude/settings.json', JSON.stringify(hooks('"$CLAUDE_PROJECT_DIR"/.claude/hooks/format.sh')));
    write(root, '.claude/settings.local.json', JSON.stringify({ statusLine: { type: 'command', command: 'node scripts/status.js' } }));
    expect(clientRunFiles(root).sort()).toEqual([path.join(root, '.claude/hooks/format.sh'), path.join(root, 'scripts/status.js')]);
    write(root, '.claude/settings.json', JSON.stringify(hooks('tools/late.sh', 'tools/later.sh')));
    expect(clientRunFiles(root).sort()).toEqual([path.join(root, 'scripts/status.js'), path.join(root, 'tools/late.sh')]);
    write(root, 'tools/later.sh', 'made\n');
    expect(clientRunFiles(root)).toContain(path.join(root, 'tools/later.sh'));
  });

  it('names nothing for settings missing, not JSON, a folder, or a FIFO, whose wait would hold the gateway', () => {
    const root = workspace(['a.sh']);
    expect(clientRunFiles(root)).toEqual([]);
    write(root, '.claude/settings.json', `${JSON.stringify(hooks('a.sh')).slice(0, -1)}`);
    expect(clientRunFiles(root)).toEqual([]);
    rmSync(path.join(root, '.claude/settings.json'));
    mkdirSync(path.join(root, '.claude/settings.json'));
    expect(clientRunFiles(root)).toEqual([]);
    execFileSync('mkfifo', [path.join(root, '.claude/settings.local.json')]);
    expect(clientRunFiles(root)).toEqual([]);
  });
});
