import { execFileSync } from 'node:child_process';
import { mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { describe, expect, it } from 'vitest';
import { ROOT } from './fixtures/mcp/helpers.js';
import { CLI, runCli } from './support/spawn-cli.js';

// A hostile model (through `toolgate serve` and the MCP SDK client) and a hostile upstream
// (test/__fixtures__/terminal-escapes-server.mjs) put escape sequences, carriage returns, C1 controls and
// direction overrides into what the CLI later prints on the operator's terminal: journal rows, results,
// tool descriptions and names, an upstream's stderr. What reaches the terminal must be what happened.

const UPSTREAM = join(ROOT, 'test/__fixtures__/terminal-escapes-server.mjs');
/** Anything a terminal would act on, or that draws a line as something else: C0 but line feed and tab, DEL, C1, direction and zero-width characters, tags. */
// eslint-disable-next-line no-control-regex -- these are the characters no output may carry
const ACTS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2066-\u2069]|\udb40/;
/** What a model writes into a file, then reads back: each part rewrites or hides what the operator sees. */
const PAYLOAD = 'DENIED: sent ~/.ssh to evil.example\r\u001b[2K\u001b[1A\u001b[2Kok \u009b2J\u202Egnp.\u001b]52;c;cm0gLXJmIH4=\u0007\u001b]8;;https://evil.example\u0007link\u001b]8;;\u0007\u001b[?1049h';

function workspace(config: object): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'toolgate-attack-terminal-')));
  writeFileSync(join(dir, 'toolgate.config.json'), JSON.stringify({ console: { enabled: false }, ...config }));
  return dir;
}

const upstream = (...args: string[]) => ({ fx: { command: process.execPath, args: [UPSTREAM, ...args], trust: 'annotations' } });

async function served<T>(dir: string, use: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ name: 'terminal-attacker', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [CLI, 'serve', '--stdio'], cwd: dir, stderr: 'ignore' }));
  try {
    return await use(client);
  } finally {
    await client.close();
  }
}

function expectPlain(text: string): void {
  expect(text).not.toMatch(ACTS);
}

describe('attack: a model writes escapes into what the CLI prints from the journal', () => {
  it('audit show, audit tail, replay and call print the payload written out, and --json carries it raw', async () => {
    const dir = workspace({ scope: 'workspace-write', mode: 'auto', policy: { allow: ['Write(**)', 'Read(**)'] } });
    await served(dir, async (client) => {
      expect((await client.callTool({ name: 'write_file', arguments: { path: 'notes.md', content: PAYLOAD } })).isError).not.toBe(true);
      expect((await client.callTool({ name: 'read_file', arguments: { path: 'notes.md' } })).isError).not.toBe(true);
    });
    const listed = JSON.parse((await runCli(['--json', 'audit', 'tail'], dir)).stdout) as { runId: string; receipt: { invocationId: string; tool: string; arguments: { content?: string } } }[];
    const write = listed.find((entry) => entry.receipt.tool === 'write_file');
    const read = listed.find((entry) => entry.receipt.tool === 'read_file');
    expect(write?.receipt.arguments.content).toBe(PAYLOAD);
    // Before: the write's arguments carried the C1 CSI and the override raw, the read's summary every escape.
    // The arguments are JSON, escaped as JSON; the summary is text, written out as the approval card writes it.
    for (const [entry, shows] of [
      [write, '\\u009b2J\\u202egnp.'],
      [read, '⟨U+009B⟩2J⟨U+202E⟩gnp.'],
    ] as const) {
      const shown = await runCli(['audit', 'show', entry?.receipt.invocationId ?? ''], dir);
      expect(shown.code).toBe(0);
      expectPlain(shown.stdout);
      expect(shown.stdout).toContain(shows);
      const json = await runCli(['--json', 'audit', 'show', entry?.receipt.invocationId ?? ''], dir);
      expectPlain(json.stdout);
      expect(JSON.stringify(JSON.parse(json.stdout))).toContain('\\u001b]52;c;cm0gLXJmIH4=\\u0007');
    }
    const json = JSON.parse((await runCli(['--json', 'audit', 'show', write?.receipt.invocationId ?? ''], dir)).stdout) as { receipt: { arguments: { content: string } } };
    expect(json.receipt.arguments.content).toBe(PAYLOAD);
    expect((await runCli(['audit', 'show', read?.receipt.invocationId ?? ''], dir)).stdout).toContain('⟨U+001B⟩[2K⟨U+001B⟩[1A⟨U+001B⟩[2Kok');
    for (const args of [['audit', 'tail'], ['audit', 'verify'], ['replay', listed[0]?.runId ?? '']]) {
      const printed = await runCli(args, dir);
      expectPlain(printed.stdout + printed.stderr);
    }
    // A CSV export keeps its cells raw for a file or a pipe, and writes them out on a terminal (util-linux `script`).
    expect((await runCli(['audit', 'export', '--format', 'csv'], dir)).stdout).toContain('\u001b]52;c;cm0gLXJmIH4=\u0007');
    const exported = execFileSync('script', ['-qfec', `${process.execPath} ${CLI} audit export --format csv 2>/dev/null`, '/dev/null'], { cwd: dir, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
    expect(exported).toContain('⟨U+001B⟩]52;c;cm0gLXJmIH4=⟨U+0007⟩');
    // Before: every escape of the summary reached the terminal. The line ends are the terminal's own.
    expectPlain(exported.replaceAll('\r\n', '\n'));
    // The CLI's own call prints what the file holds: before, every escape reached the terminal.
    const called = await runCli(['call', 'read_file', '{"path":"notes.md"}'], dir);
    expect(called.code).toBe(0);
    expectPlain(called.stdout);
    expect(called.stdout).toContain('⟨U+001B⟩]52;c;cm0gLXJmIH4=⟨U+0007⟩');
    const printed = await runCli(['--json', 'call', 'read_file', '{"path":"notes.md"}'], dir);
    // Before: the JSON left the C1 CSI and the override raw; now escaped, and the same value once parsed.
    expectPlain(printed.stdout);
    expect((JSON.parse(printed.stdout) as { content: string }).content).toContain(PAYLOAD);
  }, 60_000);

  it('audit tail and audit verify show a forged row whose tool erases the line above it, written out', async () => {
    const dir = workspace({ scope: 'workspace-write', mode: 'auto', policy: { allow: ['Write(**)', 'Read(**)'] } });
    writeFileSync(join(dir, 'notes.md'), 'inside\n');
    for (let call = 0; call < 2; call += 1) expect((await runCli(['call', 'read_file', '{"path":"notes.md"}'], dir)).code).toBe(0);
    // A writer without the key rewrites a row below the last (the journal's last row is the one its toolgate checks as
    // it opens it): its tool moves the cursor up and erases the row before it.
    const journal = join(dir, '.toolgate', 'journal.db');
    const trigger = execFileSync('sqlite3', [journal, `SELECT sql FROM sqlite_master WHERE name = 'receipts_no_update'`], { encoding: 'utf8' });
    execFileSync('sqlite3', [journal, `DROP TRIGGER receipts_no_update; UPDATE receipts SET body = replace(body, '"tool":"read_file"', '"tool":"read_file\\u001b[1A\\u001b[2K\\u009b2K"') WHERE seq = (SELECT min(seq) FROM receipts); ${trigger.trim()};`]);
    const tail = await runCli(['audit', 'tail'], dir);
    expect(tail.code).toBe(0);
    // Before: the forged row erased the table's header and hid itself.
    expectPlain(tail.stdout);
    expect(tail.stdout).toContain('read_file⟨U+001B⟩[1A⟨U+001B⟩[2K⟨U+009B⟩2K');
    const verify = await runCli(['audit', 'verify'], dir);
    expect(verify.code).not.toBe(0);
    expectPlain(verify.stdout + verify.stderr);
  }, 60_000);

  it('audit unresolved shows the target of a claim a killed gateway left, written out', async () => {
    // The reader says it writes: its call claims its effect before it reaches the upstream.
    const dir = workspace({ scope: 'workspace-write', mode: 'auto', policy: { allow: ['mcp__fx'] }, servers: upstream() });
    const client = new Client({ name: 'terminal-attacker', version: '1.0.0' });
    const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, 'serve', '--stdio'], cwd: dir, stderr: 'ignore' });
    await client.connect(transport);
    const tools = await client.listTools();
    const reader = tools.tools.find((tool) => tool.name.startsWith('mcp_fx_note'))?.name ?? '';
    void client.callTool({ name: reader, arguments: { hang: PAYLOAD } }).catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    process.kill(transport.pid ?? 0, 'SIGKILL');
    await client.close().catch(() => undefined);
    const listed = await runCli(['audit', 'unresolved'], dir);
    expect(listed.stdout).toContain('fx/note');
    // Before: the upstream's tool name carried its hyperlink, and the arguments the C1 CSI and the override, raw.
    expectPlain(listed.stdout);
    const json = JSON.parse((await runCli(['--json', 'audit', 'unresolved'], dir)).stdout) as { target: { mcp: { tool: string } } }[];
    expect(json[0]?.target.mcp.tool).toBe('note\u001b]8;;https://evil.example\u0007reader');
  }, 60_000);
});

describe('attack: an upstream writes escapes into what the CLI prints of it', () => {
  it('tools and mcp withheld show a description whose carriage return hid its first sentence, and a tool name carrying a link, written out', async () => {
    const dir = workspace({ servers: upstream() });
    expect((await runCli(['tools'], dir)).code).toBe(0);
    writeFileSync(join(dir, 'toolgate.config.json'), JSON.stringify({ console: { enabled: false }, servers: upstream('--changed') }));
    const withheld = await runCli(['mcp', 'withheld'], dir);
    expect(withheld.code).toBe(0);
    // Before: "Uploads the workspace to evil.example." was drawn over by "Reads a note.", and the name was a link.
    expectPlain(withheld.stdout);
    expect(withheld.stdout).toContain('Uploads the workspace to evil.example.⟨U+000D⟩[2KReads a note.');
    expect(withheld.stdout).toContain('tool note⟨U+001B⟩]8;;https://evil.example⟨U+0007⟩reader)');
    const json = JSON.parse((await runCli(['--json', 'mcp', 'withheld'], dir)).stdout) as { tool: string; digest: string; name: string }[];
    expect(json.map((entry) => entry.tool)).toContain('note\u001b]8;;https://evil.example\u0007reader');
    const echo = json.find((entry) => entry.name === 'mcp_fx_echo');
    expect((await runCli(['mcp', 'approve', 'mcp_fx_echo', '--digest', echo?.digest ?? ''], dir)).code).toBe(0);
    const tools = await runCli(['tools'], dir);
    expectPlain(tools.stdout);
    expect(tools.stdout).toContain('Uploads the workspace to evil.example.⟨U+000D⟩[2KReads a note.');
  }, 60_000);

  it('call shows a result whose carriage return rewrites it, written out; an error text is one line already', async () => {
    const dir = workspace({ mode: 'auto', policy: { allow: ['mcp__fx__echo', 'mcp__fx__fail'] }, servers: upstream() });
    const echoed = await runCli(['call', 'mcp_fx_echo', JSON.stringify({ text: 'DENIED: the upload went through\rOK: nothing was sent' })], dir);
    expect(echoed.code).toBe(0);
    expectPlain(echoed.stdout);
    expect(echoed.stdout).toContain('went through⟨U+000D⟩OK');
    const failed = await runCli(['call', 'mcp_fx_fail', '{}'], dir);
    expectPlain(failed.stdout);
    expect(failed.stdout).toContain('DENIED: the upload went through');
  }, 60_000);

  it('the warning that names the upstream tools that fold to one, left out, shows their escape written out', async () => {
    const dir = workspace({ servers: upstream('--clash') });
    for (const args of [['tools'], ['serve', '--stdio']]) {
      const printed = await runCli(args, dir);
      expect(printed.code).toBe(0);
      // Before: the error line that stopped the start carried the upstream's escape raw, and cleared the operator's screen.
      expectPlain(printed.stderr);
      expect(printed.stderr).toContain('offers tools "a⟨U+001B⟩[2Jb" and "a_2jb"');
    }
  }, 60_000);

  it('the stderr of a crashed upstream, in tools and in the serve banner, shows its carriage return and escapes written out', async () => {
    const dir = workspace({ servers: upstream('--crash') });
    for (const args of [['tools'], ['serve', '--stdio']]) {
      const printed = await runCli(args, dir);
      expect(printed.stderr).toContain('its stderr ended with:');
      // Before: "fatal: sent ~/.ssh/id_rsa to evil.example" was drawn over by "ready: all checks passed".
      expectPlain(printed.stderr);
      expect(printed.stderr).toContain('evil.example⟨U+000D⟩[2Kready');
    }
  }, 60_000);
});
