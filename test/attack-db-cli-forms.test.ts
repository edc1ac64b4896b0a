import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { describe, expect, it } from 'vitest';
import { servedForBlock, type ServedGateway } from './support/serve-gateway.js';

// Under a glob that admits sqlite3 or psql (`Bash(sqlite3:*)`), the floor read their arguments as plain words:
// `sqlite3 :memory: '.shell touch PWNED'` and `sqlite3 -cmd '.system …'` ran shell commands, and psql's
// `\!` reached psql. Their dot-commands, meta-commands, options and SQL functions that run, load, read or write
// where they are told are now refused under a glob; reading a database stays allowed.

const text = (result: object): string => JSON.stringify((result as { content?: unknown }).content);

const opened = servedForBlock(
  { scope: 'workspace-write', mode: 'auto', policy: { allowedCommandGlobs: ['sqlite3 *', 'psql *'], allow: ['Bash(sqlite3:*)', 'Bash(psql:*)'] } },
  { files: { 'notes.md': 'first\n' }, args: ['--no-console'] },
);

/** Run `command`; whether PWNED appeared in the workspace, and what came back. */
async function ran(gateway: { gateway: ServedGateway; mcp: Client }, command: readonly string[]): Promise<{ made: boolean; output: string }> {
  const place = join(gateway.gateway.workspace, 'PWNED');
  rmSync(place, { force: true, recursive: true });
  const result = await gateway.mcp.callTool({ name: 'run_command', arguments: { command: [...command] } });
  const made = existsSync(place);
  rmSync(place, { force: true, recursive: true });
  return { made, output: text(result) };
}

describe('attack: a database CLI a glob admits runs a shell command', () => {
  it.each([
    [['sqlite3', ':memory:', '.shell touch PWNED']],
    [['sqlite3', ':memory:', '.system touch PWNED']],
    [['sqlite3', ':memory:', '.sh touch PWNED']],
    [['sqlite3', ':memory:', '. shell touch PWNED']],
    [['sqlite3', '-cmd', '.system touch PWNED', ':memory:', 'select 1']],
    [['sqlite3', '--cmd', '.shell touch PWNED', ':memory:', 'select 1']],
    [['sqlite3', ':memory:', '.once |touch PWNED', 'select 1']],
    [['sqlite3', ':memory:', '.output PWNED', 'select 1']],
    [['sqlite3', ':memory:', "select writefile('PWNED', 'x')"]],
    [['sqlite3', ':memory:', "SELECT WriteFile('PWNED', 'x')"]],
    [['sqlite3', ':memory:', "attach 'PWNED' as p", 'create table p.t(x)']],
    [['sqlite3', ':memory:', "vacuum into 'PWNED'"]],
    [['sqlite3', ':memory:', 'select 1;\n.shell touch PWNED']],
    [['/usr/bin/sqlite3', ':memory:', '.shell touch PWNED']],
  ])('%j is refused by the floor and runs nothing', async (command) => {
    const { made, output } = await ran(opened(), command);
    expect(made, output).toBe(false);
    expect(output).toContain('was refused: ');
  });

  it.each([
    [['psql', '-X', '-c', '\\! touch PWNED']],
    [['psql', '-Xc', '\\o |touch PWNED']],
    [['psql', '--command=\\copy t to program \'touch PWNED\'']],
    [['psql', '-f', 'notes.md']],
  ])('%j never reaches psql', async (command) => {
    const { made, output } = await ran(opened(), command);
    expect(made, output).toBe(false);
    expect(output).toContain('was refused: ');
  });

  it('reading a database stays allowed', async () => {
    expect((await ran(opened(), ['sqlite3', ':memory:', 'select 40 + 2'])).output).toContain('42');
    expect((await ran(opened(), ['sqlite3', ':memory:', 'select count(*) from (select 1 union select 2)'])).output).toContain('2');
    expect((await ran(opened(), ['sqlite3', '-header', ':memory:', '.headers on', 'select 7 as seven'])).output).toContain('seven');
    const tables = await ran(opened(), ['sqlite3', ':memory:', 'create table edited_at(x)', '.tables']);
    expect(tables.output).toContain('edited_at');
  });
});
