import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decideIfAsked } from './support/pending-approval.js';
import { connectClient, makeWorkspace, serveGateway, serveWorkspace, type ServedGateway } from './support/serve-gateway.js';
import { runCli } from './support/spawn-cli.js';

// A hostile repository and a hostile model against what the policy importers read: each case is a settings or policy
// file whose rule toolgate read otherwise than its peer does, served through `toolgate serve` with the MCP SDK client.

const text = (result: object): string => JSON.stringify((result as { content?: unknown }).content);

/**
 * A gateway `start` serves for the describe block, and the attacker's client. A thread held by a regular expression
 * runs no signal handler, so it is ended with a kill.
 */
function servedUntilKilled(start: () => Promise<ServedGateway>): () => Client {
  let gateway: ServedGateway | undefined;
  let mcp: Client | undefined;
  beforeAll(async () => {
    gateway = await start();
    mcp = (await connectClient(gateway.mcpUrl, 'attacker', undefined, gateway.auth)).client;
  });
  afterAll(async () => {
    gateway?.cli.child.kill('SIGKILL');
    await mcp?.close().catch(() => undefined);
  });
  return () => mcp as Client;
}

/** Whether a call whose argument backtracks is answered within 10 s, and what it answered. */
async function answeredAtOnce(mcp: Client, name: string, args: Record<string, unknown>): Promise<object | 'held'> {
  const answered = mcp.callTool({ name, arguments: args }, undefined, { timeout: 20_000 });
  return Promise.race([answered, new Promise<'held'>((resolve) => setTimeout(() => resolve('held'), 10_000))]);
}

describe('attack import: a Gemini CLI pattern that backtracks, in an unpinned repository file', () => {
  // A repository's deny and ask rules load without a pin. Gemini CLI's own check passes `(a|a)*X` (no quantified group
  // holds a quantifier); matched by a backtracking regular expression it costs 2^n steps for a command of n `a`s, and
  // one call of the model's held the gateway's only thread for as long as it liked.
  const policy = '[[rule]]\ntoolName = "run_shell_command"\nargsPattern = "(a|a)*X"\ndecision = "deny"\npriority = 10\n';
  const mcp = servedUntilKilled(() =>
    serveGateway(
      { scope: 'workspace-write', mode: 'auto', policy: { allowedCommandGlobs: ['echo *'], allow: ['Bash(echo *)'], imports: [{ from: 'gemini', path: '.gemini/policies/repo.toml' }] } },
      { files: { '.gemini/policies/repo.toml': policy }, args: ['--no-console'] },
    ),
  );

  it('a call with a long argument is decided at once, and the deny still refuses what it names', async () => {
    const long = 'a'.repeat(48);
    const result = await answeredAtOnce(mcp(), 'run_command', { command: ['echo', long] });
    expect(result).not.toBe('held');
    expect(text(result as object)).toContain(long);
    const denied = await mcp().callTool({ name: 'run_command', arguments: { command: ['echo', 'aaX'] } });
    expect(text(denied)).toContain('refused by policy rule');
  }, 40_000);
});

describe('attack import: a Claude Code deny of a workspace file by its absolute path', () => {
  // Claude Code reads `//path` from the filesystem root and `~/path` from home, and judges the file a call reaches,
  // however the call spells it. The rules were read against the path as spelled: `secret.txt` is no absolute path,
  // so `read_file secret.txt` and the operator's `Bash(cat *)` printed the file both rules deny.
  const home = realpathSync(mkdtempSync('/var/tmp/toolgate-attack-absolute-deny-home-'));
  afterAll(() => rmSync(home, { recursive: true, force: true }));
  let gateway: ServedGateway | undefined;
  let mcp: Client | undefined;
  beforeAll(async () => {
    const config = { scope: 'workspace-write', mode: 'auto', policy: { allowedCommandGlobs: ['cat *'], allow: ['Bash(cat *)'], imports: [{ from: 'claude', path: '.claude/settings.json' }] } };
    const workspace = makeWorkspace(config, { 'secret.txt': 'ROOT-SECRET\n', 'keys/id.txt': 'HOME-SECRET\n', 'notes.txt': 'PLAIN-NOTES\n' }, home);
    mkdirSync(join(workspace, '.claude'));
    const settings = { permissions: { deny: [`Read(/${join(realpathSync(workspace), 'secret.txt')})`, `Read(~/${basename(workspace)}/keys/**)`] } };
    writeFileSync(join(workspace, '.claude', 'settings.json'), JSON.stringify(settings));
    gateway = await serveWorkspace(workspace, { args: ['--no-console'], env: { HOME: home } });
    mcp = (await connectClient(gateway.mcpUrl, 'attacker', undefined, gateway.auth)).client;
  });
  afterAll(async () => {
    await mcp?.close();
    await gateway?.cli.stop();
  });

  it.each([['secret.txt', 'ROOT-SECRET'], ['./secret.txt', 'ROOT-SECRET'], ['keys/id.txt', 'HOME-SECRET'], ['notes/../keys/id.txt', 'HOME-SECRET']])('read_file %s is refused', async (path, secret) => {
    const result = await mcp!.callTool({ name: 'read_file', arguments: { path } });
    expect(text(result)).toContain('refused by policy rule');
    expect(text(result)).not.toContain(secret);
  });

  it.each([[['cat', 'secret.txt'], 'ROOT-SECRET'], [['cat', 'keys/id.txt'], 'HOME-SECRET']])('%j is refused and prints nothing', async (command, secret) => {
    const result = await mcp!.callTool({ name: 'run_command', arguments: { command } });
    expect(text(result)).toContain('refused by policy rule');
    expect(text(result)).not.toContain(secret);
  });

  it('cat of the file named from the folder above the workspace is refused, not asked', async () => {
    // `../w/secret.txt` from the root `w` is the file the rule names: it was read as a path outside the workspace,
    // which no deny of it matched, and became a card a person could approve.
    for (const path of [`../${basename(gateway!.workspace)}/secret.txt`, `../${basename(gateway!.workspace)}/keys/../keys/id.txt`]) {
      const result = await mcp!.callTool({ name: 'run_command', arguments: { command: ['cat', path] } });
      expect(text(result)).toContain('refused by policy rule');
    }
  });

  it('a link to the file is refused where it leads', async () => {
    symlinkSync('secret.txt', join(gateway!.workspace, 'alias.txt'));
    for (const result of [await mcp!.callTool({ name: 'read_file', arguments: { path: 'alias.txt' } }), await mcp!.callTool({ name: 'run_command', arguments: { command: ['cat', 'alias.txt'] } })]) {
      expect(text(result)).toContain('refused by policy rule');
      expect(text(result)).not.toContain('ROOT-SECRET');
    }
  });

  it('a file no rule names is still read', async () => {
    expect(text(await mcp!.callTool({ name: 'read_file', arguments: { path: 'notes.txt' } }))).toContain('PLAIN-NOTES');
  });
});

describe('attack import: a Claude Code deny of a workspace file through a link', () => {
  // The home directory and the folder a deny names may be links: `~/proj/keys/**` under a HOME that is a link, or
  // `//link/proj/secret.txt`, names the workspace's own file by another spelling. Read against the workspace's real
  // path only, neither matched, and `read_file` printed both files.
  const home = realpathSync(mkdtempSync('/var/tmp/toolgate-attack-linked-home-'));
  const homeLink = `${home}-link`;
  afterAll(() => rmSync(home, { recursive: true, force: true }));
  afterAll(() => rmSync(homeLink, { force: true }));
  let gateway: ServedGateway | undefined;
  let mcp: Client | undefined;
  beforeAll(async () => {
    symlinkSync(home, homeLink);
    const config = { scope: 'workspace-write', mode: 'auto', policy: { allowedCommandGlobs: ['cat *'], allow: ['Bash(cat *)'], imports: [{ from: 'claude', path: '.claude/settings.json' }] } };
    const workspace = makeWorkspace(config, { 'secret.txt': 'LINKED-SECRET\n', 'keys/id.txt': 'HOME-LINK-SECRET\n', 'notes.txt': 'PLAIN-NOTES\n' }, home);
    mkdirSync(join(workspace, '.claude'));
    const settings = { permissions: { deny: [`Read(/${join(homeLink, basename(workspace), 'secret.txt')})`, `Read(~/${basename(workspace)}/keys/**)`] } };
    writeFileSync(join(workspace, '.claude', 'settings.json'), JSON.stringify(settings));
    gateway = await serveWorkspace(workspace, { args: ['--no-console'], env: { HOME: homeLink } });
    mcp = (await connectClient(gateway.mcpUrl, 'attacker', undefined, gateway.auth)).client;
  });
  afterAll(async () => {
    await mcp?.close();
    await gateway?.cli.stop();
  });

  it.each([['secret.txt', 'LINKED-SECRET'], ['keys/id.txt', 'HOME-LINK-SECRET']])('%s is refused to read_file and to cat', async (path, secret) => {
    for (const result of [await mcp!.callTool({ name: 'read_file', arguments: { path } }), await mcp!.callTool({ name: 'run_command', arguments: { command: ['cat', path] } })]) {
      expect(text(result)).toContain('refused by policy rule');
      expect(text(result)).not.toContain(secret);
    }
  });

  it('read_file by the linked spelling is refused', async () => {
    const result = await mcp!.callTool({ name: 'read_file', arguments: { path: join(homeLink, basename(gateway!.workspace), 'keys', 'id.txt') } });
    expect(text(result)).not.toContain('HOME-LINK-SECRET');
  });

  it('a file no rule names is still read', async () => {
    expect(text(await mcp!.callTool({ name: 'read_file', arguments: { path: 'notes.txt' } }))).toContain('PLAIN-NOTES');
  });
});

describe.each([
  ['the Claude Code file first', [0, 1]],
  ['the Gemini CLI file first', [1, 0]],
])("attack import: one imported file's ask outranks another's deny (%s)", (_order, positions) => {
  // Each file is read with its own peer's ranks: a Claude Code deny sits at 0, a Gemini CLI workspace rule at 3000
  // and more. A repository's unpinned `ask_user` for read_file at 3999 outranked the deny of the user's own Claude
  // Code settings, so `.env` became a card a person could approve, where Claude Code refuses it.
  const imports = [{ from: 'claude', path: '.claude/settings.json' }, { from: 'gemini', path: '.gemini/policies/repo.toml' }];
  let gateway: ServedGateway | undefined;
  let mcp: Client | undefined;
  beforeAll(async () => {
    gateway = await serveGateway(
      { scope: 'workspace-write', mode: 'auto', policy: { imports: positions.map((position) => imports[position]) } },
      {
        files: {
          '.claude/settings.json': JSON.stringify({ permissions: { deny: ['Read(.env)'] } }),
          '.gemini/policies/repo.toml': '[[rule]]\ntoolName = "read_file"\ndecision = "ask_user"\npriority = 999\n',
          '.env': 'API_KEY=hunter2-in-env\n',
        },
      },
    );
    mcp = (await connectClient(gateway.mcpUrl, 'attacker', undefined, gateway.auth)).client;
  });
  afterAll(async () => {
    await mcp?.close();
    await gateway?.cli.stop();
  });

  it('the deny decides: no card is raised, and the read is refused', async () => {
    const { result, card } = await decideIfAsked(gateway!, mcp!, 'read_file', { path: '.env' }, 'once');
    expect(card, text(result)).toBeUndefined();
    expect(text(result)).toContain('refused by policy rule \\"Read(.env)');
    expect(text(result)).not.toContain('hunter2-in-env');
  }, 40_000);
});

describe('attack import: a settings file that names a key twice', () => {
  // `JSON.parse` keeps the last of two same-named keys: the second `deny` emptied the first, and the gateway read the
  // file as denying nothing, while the file, as a person reads or pins it, denies `.env`. Another reader keeps the first.
  it.each([
    ['{"permissions":{"deny":["Read(.env)"],"deny":[]}}', 'permissions.deny'],
    ['{"permissions":{"deny":["Read(.env)"]},"permissions":{}}', 'permissions'],
    ['{"permissions":{"deny":["Read(.env)"],"d\\u0065ny":[]}}', 'permissions.deny'],
  ])('%s refuses the start, naming the key', async (settings, key) => {
    const workspace = makeWorkspace({ policy: { imports: [{ from: 'claude', path: '.claude/settings.json' }] } }, { '.claude/settings.json': settings, '.env': 'API_KEY=hunter2\n' });
    const gateway = await runCli(['serve', '--stdio', '--no-console'], workspace, '');
    expect(gateway.code).not.toBe(0);
    expect(gateway.stderr).toContain(`names the key "${key}" twice`);
    const imported = await runCli(['policy', 'import', 'claude', '.claude/settings.json'], workspace);
    expect(imported.code).not.toBe(0);
  });

  it('the same key in two objects is no duplicate', async () => {
    const workspace = makeWorkspace({ policy: { imports: [{ from: 'claude', path: '.claude/settings.json' }] } }, { '.claude/settings.json': '{"permissions":{"deny":["Read(.env)"]},"env":{"deny":"x"}}' });
    const imported = await runCli(['--json', 'policy', 'import', 'claude', '.claude/settings.json'], workspace);
    expect((JSON.parse(imported.stdout) as { rules: { rule: string }[] }).rules.map((rule) => rule.rule)).toEqual(['Read(.env)']);
  });
});

describe("attack import: a pattern that backtracks, in a repository's own .toolgate/policy.json", () => {
  // A project's deny and ask rules load without trust, and an object-form `argsPattern` was run by backtracking: a
  // model's argument of 48 `a`s under `(a|a)*X` held the gateway's only thread until it was killed.
  const planted = { rules: [{ tool: 'read_file', decision: 'deny', source: 'project', match: { argsPattern: '"path":"(a|a)*X' } }] };
  const mcp = servedUntilKilled(() =>
    serveWorkspace(makeWorkspace({ scope: 'workspace-write', mode: 'auto', policy: { allow: ['Read(**)'] } }, { '.toolgate/policy.json': JSON.stringify(planted), 'aaX': 'denied\n', 'notes.md': 'plain\n' }), { args: ['--no-console'] }),
  );

  it('a call with a long argument is decided at once, and the deny still refuses what it names', async () => {
    expect(await answeredAtOnce(mcp(), 'read_file', { path: 'a'.repeat(48) })).not.toBe('held');
    const denied = await mcp().callTool({ name: 'read_file', arguments: { path: 'aaX' } });
    expect(text(denied)).toContain('refused by policy rule');
    expect(text(await mcp().callTool({ name: 'read_file', arguments: { path: 'notes.md' } }))).toContain('plain');
  }, 40_000);
});

describe("attack import: an argv glob of many stars, in a repository's own .toolgate/policy.json", () => {
  // An argv element's `*` was run as `[\s\S]*` by backtracking: under `*a*a*a*a*a*a*X` a model's argument of a few
  // thousand `a`s tried every place of every star, and held the gateway's only thread until it was killed.
  const planted = { rules: [{ tool: 'run_command', decision: 'deny', source: 'project', match: { argv: ['echo', '*a*a*a*a*a*a*X'] } }] };
  const config = { scope: 'workspace-write', mode: 'auto', policy: { allowedCommandGlobs: ['echo *'], allow: ['Bash(echo *)'] } };
  const mcp = servedUntilKilled(() => serveWorkspace(makeWorkspace(config, { '.toolgate/policy.json': JSON.stringify(planted) }), { args: ['--no-console'] }));

  it('a call with a long argument is decided at once, and the deny still refuses what it names', async () => {
    // Names of a path's length, so the argument reads as one.
    const long = `${'a'.repeat(200)}/`.repeat(15);
    const result = await answeredAtOnce(mcp(), 'run_command', { command: ['echo', long] });
    expect(result).not.toBe('held');
    expect(text(result as object)).toContain(long);
    const denied = await mcp().callTool({ name: 'run_command', arguments: { command: ['echo', 'aaaaaaX'] } });
    expect(text(denied)).toContain('refused by policy rule');
  }, 40_000);
});
