import { execFileSync } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolRegistry, type McpCapability, type PolicyDecision, type ToolHost, type ToolOutcome, type ToolPolicy, unwrapUntrusted } from '../../core/internal.js';
import { compileJsonSchema } from '../../core/tools/schema-validator.js';
import type { JsonSchema } from '../../core/tools/tool-types.js';
import { createNodeHost } from '../create-node-host.js';
import { startEgressTestServer, TEST_CERT, type EgressTestServer } from '../egress/__fixtures__/egress-test-server.js';
import type { NodeHost, NodeHostOptions } from '../node-host-types.js';
import { builtinTools } from './builtin-tools.js';
import { webSearchProviders } from './web-search-providers.js';

const allow: PolicyDecision = { kind: 'allow', matched: [] };

/** The smallest policy these tests need: listed commands run, gated tools need the gate, all else allowed. */
function testPolicy(commands: readonly string[]): ToolPolicy {
  return {
    version: 1,
    decideIdentity: () => allow,
    decideArguments({ tool, target, gateApproved }) {
      if (tool.policy.requiresGate && !gateApproved) return { kind: 'deny', reason: 'gate_required', matched: [] };
      const command = target?.command;
      const program = typeof command === 'string' ? command.split(/ +/)[0] : command?.[0];
      if (tool.policy.spawnsProcess && (program === undefined || !commands.includes(program))) return { kind: 'deny', reason: 'command_not_allowed', matched: [] };
      return allow;
    },
  };
}

let base: string;
let workspace: string;
let fake: EgressTestServer;
const hosts: NodeHost[] = [];
const granted = builtinTools.map((tool) => tool.name);

function makeHost(options: Partial<NodeHostOptions> = {}): NodeHost {
  const host = createNodeHost({
    workspace,
    spillDir: path.join(base, `spill-${hosts.length}`),
    sandbox: 'off',
    secrets: new Map([['brave-key', 'brave-secret'], ['tavily-key', 'tavily-secret']]),
    egress: { lookup: fake.lookup({ 'search.example.test': [{ address: '93.184.216.34', family: 4 }] }), connect: fake.connect, trustedCa: TEST_CERT },
    env: { set: { GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.test', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.test' } },
    ...options,
  });
  hosts.push(host);
  return host;
}

function registryFor(host: ToolHost, commands: readonly string[] = []) {
  return createToolRegistry({ tools: builtinTools, host, policy: testPolicy(commands) });
}

function expectOk(outcome: ToolOutcome): unknown {
  if (!outcome.ok) throw new Error(`expected success, got ${outcome.error.code}: ${outcome.error.message}`);
  return outcome.value;
}

beforeAll(async () => {
  base = await mkdtemp(path.join(tmpdir(), 'toolgate-tools-'));
  workspace = path.join(base, 'ws');
  await mkdir(workspace);
  fake = await startEgressTestServer();
});

afterAll(async () => {
  await Promise.all(hosts.map((host) => host.close()));
  await fake.close();
  await rm(base, { recursive: true, force: true });
});

describe('builtinTools schemas', () => {
  // A built-in's schemas compile when a call first needs them (see compileTool): each must compile.
  it.each(builtinTools.map((tool) => [tool.name, tool] as const))('%s: its input and output schemas compile', (_name, tool) => {
    for (const schema of [tool.input, tool.output]) if (schema !== undefined) expect(() => compileJsonSchema(schema as JsonSchema)).not.toThrow();
  });
});

describe('builtinTools through the pipeline', () => {
  it('registers every built-in', () => {
    const registry = registryFor(makeHost());
    expect(registry.list().map((tool) => tool.name)).toEqual([...granted].sort());
  });

  it('write_file, read_file, edit_file and list_directory round-trip with optimistic concurrency', async () => {
    const registry = registryFor(makeHost());
    const dispatch = (name: string, args: unknown) => registry.dispatch({ callId: name, name, arguments: args }, { grantedTools: granted });
    expect(expectOk(await dispatch('write_file', { path: 'notes/a.md', content: 'alpha\nbeta\n' }))).toMatchObject({ created: true, bytes: 11 });
    const read = expectOk(await dispatch('read_file', { path: 'notes/a.md' })) as { sha256: string };
    expect(expectOk(await dispatch('edit_file', { path: 'notes/a.md', oldText: 'beta', newText: 'gamma' }))).toMatchObject({ replacements: 1 });
    const stale = await dispatch('write_file', { path: 'notes/a.md', content: 'lost update', expectedSha256: read.sha256 });
    expect(stale.ok).toBe(false);
    expect(await readFile(path.join(workspace, 'notes/a.md'), 'utf8')).toBe('alpha\ngamma\n');
    expect(expectOk(await dispatch('list_directory', { path: 'notes' }))).toEqual({ entries: [{ path: 'notes/a.md', kind: 'file', bytes: 12 }] });
    const escape = await dispatch('read_file', { path: '../outside' });
    expect(escape.ok === false && escape.error.code === 'POLICY_DENIED' && escape.error.recoverable).toBe(true);
  });

  it('run_command runs allowed commands without a shell; the policy sees the command', async () => {
    const registry = registryFor(makeHost(), ['echo']);
    const ran = expectOk(await registry.dispatch({ callId: '1', name: 'run_command', arguments: { command: 'echo  hello   world' } }, { grantedTools: granted }));
    expect(ran).toMatchObject({ exitCode: 0, stdout: 'hello world\n', sandbox: 'none' });
    const refused = await registry.dispatch({ callId: '2', name: 'run_command', arguments: { command: ['rm', '-rf', '.'] } }, { grantedTools: granted });
    expect(refused.ok === false && (refused.error as { reason?: string }).reason).toBe('command_not_allowed');
  });

  it('run_command refuses a compound command string before policy; an argv array keeps its literal meaning', async () => {
    let decided = 0;
    const counting: ToolPolicy = { version: 1, decideIdentity: () => allow, decideArguments: () => ((decided += 1), allow) };
    const registry = createToolRegistry({ tools: builtinTools, host: makeHost(), policy: counting });
    for (const [index, command] of ['echo ok && rm -rf x', 'echo a | sh', 'echo x > out', 'echo $(id)', 'echo `id`', 'echo a; echo b', 'echo a\necho b'].entries()) {
      const refused = await registry.dispatch({ callId: `c${index}`, name: 'run_command', arguments: { command } }, { grantedTools: granted });
      expect(refused.ok).toBe(false);
      if (refused.ok) continue;
      expect(refused.error.code).toBe('ARGS_INVALID');
      expect(refused.error.loopCorrectable).toBe(true);
      expect(refused.error.message).toContain('without a shell');
      expect(refused.error.message).toContain('separate run_command call');
    }
    expect(decided).toBe(0);
    const quoted = expectOk(await registry.dispatch({ callId: 'q', name: 'run_command', arguments: { command: "echo 'a && b'" } }, { grantedTools: granted }));
    expect(quoted).toMatchObject({ exitCode: 0, stdout: "'a && b'\n" });
    const literal = expectOk(await registry.dispatch({ callId: 'l', name: 'run_command', arguments: { command: ['echo', 'ok', '&&', 'rm', '-rf', 'x'] } }, { grantedTools: granted }));
    expect(literal).toMatchObject({ exitCode: 0, stdout: 'ok && rm -rf x\n' });
    expect(decided).toBe(2);
  });

  it('git_status needs no command allowance; git_commit needs the gate', async () => {
    execFileSync('git', ['init', '-q', workspace]);
    await writeFile(path.join(workspace, 'tracked.txt'), 'x\n');
    const registry = registryFor(makeHost());
    const status = expectOk(await registry.dispatch({ callId: 's', name: 'git_status', arguments: {} }, { grantedTools: granted })) as { stdout: string };
    expect(status.stdout).toContain('tracked.txt');
    const ungated = await registry.dispatch({ callId: 'c1', name: 'git_commit', arguments: { message: 'add', paths: ['tracked.txt'] } }, { grantedTools: granted });
    expect(ungated.ok === false && (ungated.error as { reason?: string }).reason).toBe('gate_required');
    const committed = expectOk(
      await registry.dispatch({ callId: 'c2', name: 'git_commit', arguments: { message: '--amend starts like an option', paths: ['tracked.txt'] } }, { grantedTools: granted, gateApproved: true }),
    ) as { commit: string };
    expect(committed.commit).toMatch(/^[0-9a-f]{40}$/);
    expect(execFileSync('git', ['-C', workspace, 'log', '-1', '--format=%s'], { encoding: 'utf8' }).trim()).toBe('--amend starts like an option');
  });

  it('git_commit takes its paths literally: a gate approval of .en[v] or :(icase).ENV stages no .env', async () => {
    execFileSync('git', ['init', '-q', workspace]);
    await writeFile(path.join(workspace, '.env'), 'SECRET=hunter2\n');
    const registry = registryFor(makeHost());
    for (const [callId, spelled] of [['g1', '.en[v]'], ['g2', ':(icase).ENV'], ['g3', '.e*']] as const) {
      const outcome = await registry.dispatch({ callId, name: 'git_commit', arguments: { message: 'sneak', paths: [spelled] } }, { grantedTools: granted, gateApproved: true });
      expect(outcome.ok, spelled).toBe(false);
    }
    expect(execFileSync('git', ['-C', workspace, 'ls-files', '--', '.env'], { encoding: 'utf8' })).toBe('');
    await rm(path.join(workspace, '.env'));
  });

  it.each([
    ['searxng', undefined, { path: /^\/search\?q=loopback\+test&format=json$/ }],
    ['brave', 'brave-key', { subscription: 'brave-secret', authorization: null }],
    ['tavily', 'tavily-key', { method: 'POST', authorization: 'Bearer tavily-secret' }],
  ] as const)('web_search talks to a %s-shaped provider with its key resolved by the host', async (provider, credentialRef, expected) => {
    const registry = registryFor(makeHost());
    // The loopback fake provider echoes what it received and answers in every provider's result shape.
    const endpoint = 'https://search.example.test/';
    const config = { values: { provider, endpoint, ...(credentialRef === undefined ? {} : { credentialRef }) } };
    const host = hosts.at(-1) as NodeHost;
    const seen = await host.egress.fetch(webSearchProviders[provider].request({ endpoint, query: 'loopback test', count: 3, credentialRef }));
    expect(JSON.parse(seen.body)).toMatchObject(expected);
    const outcome = await registry.dispatch({ callId: 'w', name: 'web_search', arguments: { query: 'loopback test', count: 3 } }, { grantedTools: granted, config });
    expect(expectOk(outcome)).toEqual({ provider, results: [{ title: 'Loopback result', url: 'https://example.test/page', snippet: 'a snippet' }] });
    expect(JSON.stringify(outcome.receipt)).not.toContain('secret');
    const sneaky = await registry.dispatch({ callId: 'x', name: 'web_search', arguments: { query: 'q', credentialRef: 'brave-key' } }, { grantedTools: granted });
    expect(sneaky.ok).toBe(false);
  });

  it('read_clipboard and notify name the missing programs; a present one is used', async () => {
    const registry = registryFor(makeHost({ executablePath: ['/nonexistent-bin'] }));
    const clipboard = await registry.dispatch({ callId: 'c', name: 'read_clipboard', arguments: {} }, { grantedTools: granted });
    expect(clipboard.ok === false && clipboard.error.code).toBe('TOOL_UNAVAILABLE');
    expect(clipboard.ok === false && clipboard.error.message).toMatch(/xclip.*xsel/);
    const notify = await registry.dispatch({ callId: 'n', name: 'notify', arguments: { title: 't', body: 'b' } }, { grantedTools: granted });
    expect(notify.ok === false && notify.error.message).toContain('notify-send');
    const bin = path.join(base, 'desktop-bin');
    await mkdir(bin, { recursive: true });
    await writeFile(path.join(bin, 'xclip'), '#!/bin/sh\nprintf "clip:%s" "$*"\n');
    await writeFile(path.join(bin, 'notify-send'), `#!/bin/sh\nprintf "%s|%s|%s" "$1" "$2" "$3" > ${path.join(base, 'notified')}\n`);
    await chmod(path.join(bin, 'xclip'), 0o755);
    await chmod(path.join(bin, 'notify-send'), 0o755);
    const desktop = registryFor(makeHost({ executablePath: [bin, '/usr/bin', '/bin'] }));
    expect(expectOk(await desktop.dispatch({ callId: 'c', name: 'read_clipboard', arguments: {} }, { grantedTools: granted }))).toEqual({ text: 'clip:-selection clipboard -o' });
    expect(expectOk(await desktop.dispatch({ callId: 'n', name: 'notify', arguments: { title: '-t $(x)', body: 'b' } }, { grantedTools: granted }))).toEqual({ delivered: true });
    expect(await readFile(path.join(base, 'notified'), 'utf8')).toBe('--|-t $(x)|b');
  });

  it('mcp_call goes through host.mcp (unavailable without it); invoke_agent through the engine delegate', async () => {
    const host = makeHost();
    const missing = await registryFor(host).dispatch({ callId: 'm', name: 'mcp_call', arguments: { server: 's', tool: 't' } }, { grantedTools: granted });
    expect(missing.ok === false && missing.error.code).toBe('TOOL_UNAVAILABLE');
    const calls: unknown[] = [];
    const mcp: McpCapability = { call: async (input) => (calls.push(input), { echoed: input.arguments }) };
    const withMcp = registryFor({ ...host, mcp });
    expect(expectOk(await withMcp.dispatch({ callId: 'm', name: 'mcp_call', arguments: { server: 's', tool: 't', arguments: { a: 1 } } }, { grantedTools: granted }))).toEqual({ result: { echoed: { a: 1 } } });
    expect(calls).toHaveLength(1);
    const noAgent = await withMcp.dispatch({ callId: 'a', name: 'invoke_agent', arguments: { agent: 'helper', input: 'hi' } }, { grantedTools: granted });
    expect(noAgent.ok === false && noAgent.error.code).toBe('TOOL_UNAVAILABLE');
    const delegated = await withMcp.dispatch({ callId: 'a', name: 'invoke_agent', arguments: { agent: 'helper', input: 'hi' } }, { grantedTools: granted, invokeAgent: async (agent, input) => `${agent}:${String(input)}` });
    expect(expectOk(delegated)).toEqual({ output: 'helper:hi' });
  });

  it('read_media attaches a stored handle and refuses an unknown one recoverably', async () => {
    const host = makeHost();
    const registry = registryFor(host);
    const media = await host.mediaStore.put(new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), 'image/png');
    const outcome = await registry.dispatch({ callId: 'r', name: 'read_media', arguments: { handle: media.handle } }, { grantedTools: granted });
    expect(outcome.ok && outcome.attachments).toHaveLength(1);
    const unknown = await registry.dispatch({ callId: 'r', name: 'read_media', arguments: { handle: `media:sha256:${'0'.repeat(64)}` } }, { grantedTools: granted });
    expect(unknown.ok === false && unknown.error.recoverable).toBe(true);
  });

  it('spills over-limit output to the run-scoped store and sweeps it on endRun', async () => {
    const host = makeHost();
    const registry = registryFor(host);
    await writeFile(path.join(workspace, 'big.txt'), 'line\n'.repeat(5000));
    const outcome = await registry.dispatch({ callId: 'b', name: 'read_file', arguments: { path: 'big.txt' } }, { grantedTools: granted, runId: 'run-1', limits: { maxBytes: 1000, maxLines: 50 } });
    const handle = /spill:[A-Za-z0-9._-]+\/[0-9a-f]+/.exec(unwrapUntrusted(outcome.content))?.[0];
    expect(handle).toBeDefined();
    expect((await host.outputStore.read(handle ?? ''))?.length).toBeGreaterThan(25_000);
    await host.endRun('run-1');
    expect(await host.outputStore.read(handle ?? '')).toBeUndefined();
  });
});
