import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from './support/spawn-cli.js';

const root = join(import.meta.dirname, '..');
const readme = readFileSync(join(root, 'README.md'), 'utf8');

/** The first ```ts block after a heading. */
function exampleAfter(heading: string): string {
  const section = readme.slice(readme.indexOf(heading));
  const match = /```ts\n([\s\S]*?)```/.exec(section);
  if (match?.[1] === undefined) throw new Error(`no example after ${heading}`);
  return match[1];
}

describe('README', () => {
  it('the library example runs as written against the built package', () => {
    // The example is plain JavaScript as well as TypeScript: run it as a module inside the package, so `toolgate` resolves to dist.
    const file = join(root, 'readme-example.test-run.mjs');
    writeFileSync(file, exampleAfter('## The library in one example'));
    try {
      const output = execFileSync(process.execPath, [file], { cwd: root, encoding: 'utf8' });
      expect(output.trim()).toBe('5 5');
    } finally {
      rmSync(file, { force: true });
    }
  });

  it('names the two commands of the quick start', () => {
    expect(readme).toContain('npm install && npm start');
    expect(readme).toContain('npm test');
    const scripts = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
    expect(scripts.start).toContain('serve');
    expect(scripts.test).toContain('vitest run');
  });
});

/** The JSON config of each numbered recipe under "## Policy: five recipes". */
function recipes(): Record<string, unknown>[] {
  const section = readme.slice(readme.indexOf('## Policy: five recipes'), readme.indexOf('## The library, one example per subpath'));
  return [...section.matchAll(/```json\n([\s\S]*?)```/g)].map((match) => JSON.parse(match[1] ?? '') as Record<string, unknown>);
}

/** A workspace holding one recipe's config, and the decision `policy explain` reaches for a call in it. */
function recipeWorkspace(config: Record<string, unknown>): { dir: string; decide(tool: string, args: object): Promise<string> } {
  const dir = mkdtempSync(join(tmpdir(), 'toolgate-recipe-'));
  mkdirSync(join(dir, 'docs'));
  mkdirSync(join(dir, 'secrets'));
  writeFileSync(join(dir, 'toolgate.config.json'), JSON.stringify({ ...config, console: { enabled: false } }));
  return {
    dir,
    async decide(tool, args) {
      const explained = await runCli(['--json', 'policy', 'explain', tool, JSON.stringify(args)], dir);
      expect(explained.code, explained.stderr).toBe(0);
      return (JSON.parse(explained.stdout) as { decision: string }).decision;
    },
  };
}

describe('README recipes do what they say (each config, through the built CLI)', () => {
  const all = recipes();
  it('there are five', () => expect(all).toHaveLength(5));

  it('1: the tests and git state run without asking; any other command is refused by the floor', async () => {
    const recipe = recipeWorkspace(all[0] ?? {});
    expect(await recipe.decide('run_command', { command: 'npm test' })).toBe('runs');
    expect(await recipe.decide('run_command', { command: 'git status' })).toBe('runs');
    expect(await recipe.decide('run_command', { command: 'git diff' })).toBe('runs');
    expect(await recipe.decide('run_command', { command: 'git push' })).toBe('denied');
    expect(await recipe.decide('run_command', { command: 'rm -rf .' })).toBe('denied');
  });

  it('2: docs are edited without asking; every other write asks', async () => {
    const recipe = recipeWorkspace(all[1] ?? {});
    expect(await recipe.decide('write_file', { path: 'docs/x.md', content: 'x' })).toBe('runs');
    expect(await recipe.decide('edit_file', { path: 'docs/x.md', oldText: 'x', newText: 'y' })).toBe('runs');
    expect(await recipe.decide('write_file', { path: 'src/x.ts', content: 'x' })).toBe('asks');
    expect(await recipe.decide('write_file', { path: 'README.md', content: 'x' })).toBe('asks');
    // And the call itself: the docs write runs from a terminal-less `toolgate call`; the other is denied, nobody being there to ask.
    expect((await runCli(['call', 'write_file', '{"path":"docs/x.md","content":"written"}'], recipe.dir)).code).toBe(0);
    expect(readFileSync(join(recipe.dir, 'docs/x.md'), 'utf8')).toBe('written');
    expect((await runCli(['call', 'write_file', '{"path":"src.md","content":"x"}'], recipe.dir)).code).toBe(3);
  });

  it('3: one API host, nothing else on the network', async () => {
    const recipe = recipeWorkspace(all[2] ?? {});
    expect(await recipe.decide('http_request', { method: 'GET', url: 'https://api.github.com/repos/x/y' })).toBe('asks');
    expect(await recipe.decide('http_request', { method: 'GET', url: 'https://example.com/' })).toBe('denied');
  });

  it('4: secrets are out of reach, even for reads', async () => {
    const recipe = recipeWorkspace(all[3] ?? {});
    writeFileSync(join(recipe.dir, '.env'), 'A=1\n');
    writeFileSync(join(recipe.dir, 'secrets', 'key.txt'), 'k\n');
    writeFileSync(join(recipe.dir, 'notes.md'), 'n\n');
    expect(await recipe.decide('read_file', { path: '.env' })).toBe('denied');
    expect(await recipe.decide('read_file', { path: '.env.local' })).toBe('denied');
    expect(await recipe.decide('read_file', { path: 'secrets/key.txt' })).toBe('denied');
    expect(await recipe.decide('read_file', { path: 'notes.md' })).toBe('runs');
  });

  it('5: upstream tools ask in ask mode, never run in plan mode; a trusted server\'s read-only tools run', async () => {
    // The recipe's filesystem server, from this repository's install instead of npx; the GitHub and docs servers are not installed here.
    const config = all[4] as { servers: { fs: Record<string, unknown> }; policy: Record<string, unknown> };
    const fs = { ...config.servers.fs, command: process.execPath, args: [join(root, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js'), '.'] };
    const recipe = recipeWorkspace({ servers: { fs }, policy: { deny: config.policy.deny, ask: config.policy.ask } });
    writeFileSync(join(recipe.dir, 'notes.md'), 'n\n');
    expect(await recipe.decide('mcp_fs_read_text_file', { path: 'notes.md' })).toBe('runs');
    // The default scope is read-only: the floor refuses a write before anyone could be asked; in a writable workspace it asks.
    expect(await recipe.decide('mcp_fs_write_file', { path: 'notes.md', content: 'x' })).toBe('denied');
    const writable = recipeWorkspace({ scope: 'workspace-write', servers: { fs }, policy: {} });
    expect(await writable.decide('mcp_fs_write_file', { path: 'notes.md', content: 'x' })).toBe('asks');
    const planned = recipeWorkspace({ mode: 'plan', scope: 'workspace-write', servers: { fs }, policy: {} });
    expect(await planned.decide('mcp_fs_write_file', { path: 'notes.md', content: 'x' })).toBe('denied');
  });
});

describe('the installed command', () => {
  it('init writes rules that agree with its allowlists: every command a rule allows can run', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolgate-init-'));
    expect((await runCli(['init'], dir)).code).toBe(0);
    const explain = async (command: string) => JSON.parse((await runCli(['--json', 'policy', 'explain', 'run_command', JSON.stringify({ command })], dir)).stdout) as { decision: string; explanation: { guardrail?: unknown } };
    for (const command of ['git status', 'git diff']) {
      const explained = await explain(command);
      expect(explained.explanation.guardrail, command).toBeUndefined();
      expect(explained.decision, command).toBe('asks');
    }
    expect((await explain('git diff HEAD')).decision).toBe('denied');
  });

  it('the packed tarball holds the bin and what it loads', () => {
    const [packed] = JSON.parse(execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, encoding: 'utf8' })) as { files: { path: string }[] }[];
    const files = new Set(packed?.files.map((file) => file.path));
    const bin = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { bin: { toolgate: string } }).bin.toolgate;
    expect(files.has(bin.replace(/^\.\//, ''))).toBe(true);
    expect(files.has('schema/toolgate.config.schema.json')).toBe(true);
    expect(readFileSync(join(root, bin), 'utf8').startsWith('#!/usr/bin/env node')).toBe(true);
    expect(readme).toContain('npm install -g --allow-scripts=better-sqlite3 ./toolgate-0.1.0.tgz');
    expect(readme).not.toMatch(/npx -y toolgate serve|"command": "npx", "args": \["-y", "toolgate"/);
  });
});
