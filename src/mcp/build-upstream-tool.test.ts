import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import {
  createConfirm,
  createPolicy,
  createToolRegistry,
  ToolPolicyError,
  type ApprovalMode,
  type McpCallInput,
  type ResolveTargetRequest,
  type ToolApprovalRequest,
  type ToolHost,
} from '../core/internal.js';
import { lexicalPath } from '../core/action/resolve-action-lexically.js';
import { buildUpstreamTool, upstreamGovernanceOf } from './build-upstream-tool.js';
import type { McpServerConfig } from './mcp-types.js';

const WORKSPACE = '/work/repo';
const fs: McpServerConfig = { name: 'fs', transport: 'stdio', command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '.'], cwd: WORKSPACE };
const pathSchema: Tool['inputSchema'] = { type: 'object', properties: { path: { type: 'string' }, content: { type: 'string' } }, required: ['path'] };
const readText: Tool = { name: 'read_text_file', inputSchema: pathSchema, annotations: { readOnlyHint: true } };
const writeFile: Tool = { name: 'write_file', inputSchema: pathSchema, annotations: { readOnlyHint: false, destructiveHint: true } };

interface Setup {
  readonly server?: McpServerConfig;
  readonly tools?: readonly Tool[];
  readonly rules?: { readonly allow?: readonly string[]; readonly deny?: readonly string[] };
  readonly mode?: ApprovalMode;
  readonly resolve?: ToolHost['resolve'];
}

/** Upstream tools in a registry under the CLI's kind of policy and approval controller, with a recording upstream and approver. */
function setup(options: Setup = {}) {
  const server = options.server ?? fs;
  const calls: McpCallInput[] = [];
  const asked: ToolApprovalRequest[] = [];
  const mcp = {
    call: (input: McpCallInput) => {
      calls.push(input);
      return Promise.resolve({ content: [{ type: 'text', text: 'done' }] });
    },
  };
  const tools = (options.tools ?? [readText, writeFile]).map((tool) => buildUpstreamTool({ server, tool, name: `mcp_${server.name}_${tool.name}`, description: 'An upstream tool.' }));
  const rule = (decision: 'allow' | 'deny') => (options.rules?.[decision] ?? []).map((text) => ({ rule: text, decision, source: 'project' as const }));
  const policy = createPolicy({ rules: [...rule('allow'), ...rule('deny')], mcpServers: [server.name], scope: { tier: 'workspace-write', roots: [WORKSPACE] } });
  const controller = createConfirm({
    mode: options.mode ?? 'ask',
    policy,
    prompt: (request) => {
      asked.push(request);
      return Promise.resolve({ outcome: 'approve' });
    },
  });
  const registry = createToolRegistry({ tools, host: { mcp, ...(options.resolve === undefined ? {} : { resolve: options.resolve }) }, policy });
  const context = { grantedTools: registry.list().map((info) => info.key), approval: { confirm: controller.confirm } };
  const dispatch = (name: string, args: Record<string, unknown>) => registry.dispatch({ callId: `${name}-${JSON.stringify(args)}`, name, arguments: args }, context);
  return { calls, asked, registry, dispatch };
}

const reasonOf = (outcome: { ok: boolean; error?: unknown }): string | undefined => (outcome.ok ? undefined : ((outcome.error as { reason?: string; code: string }).reason ?? (outcome.error as { code: string }).code));

describe('an upstream tool as a definition', () => {
  it('is MCP egress by default, and takes its class from its targets', () => {
    const { registry } = setup();
    const read = registry.list().find((info) => info.name === 'mcp_fs_read_text_file');
    const write = registry.list().find((info) => info.name === 'mcp_fs_write_file');
    expect(read).toMatchObject({ governed: true, policyView: { policy: { egress: 'mcp', fsScoped: true, fsWrite: false } } });
    expect(write).toMatchObject({ governed: true, policyView: { policy: { egress: 'mcp', fsScoped: true, fsWrite: true } } });
    expect(upstreamGovernanceOf(registry.get('mcp_fs_write_file'))).toMatchObject({ governed: true, reason: 'untrusted server', access: 'write', targets: { path: '/path' }, targetsFrom: 'shipped' });
  });

  it('says truthfully what is governed: the listing and the governance agree', () => {
    const trusted = setup({ server: { ...fs, trust: 'annotations' } });
    for (const info of trusted.registry.list()) expect(info.governed, info.name).toBe(upstreamGovernanceOf(trusted.registry.get(info.key))?.governed);
    expect(trusted.registry.list().find((info) => info.name === 'mcp_fs_read_text_file')).toMatchObject({ governed: false, policyView: { policy: { egress: undefined, fsScoped: true } } });
  });

  it('refuses a path outside the workspace before the upstream is called', async () => {
    const { calls, dispatch } = setup();
    for (const path of ['../elsewhere/x', '/etc/passwd', '~/.ssh/id_rsa']) {
      expect(reasonOf(await dispatch('mcp_fs_write_file', { path, content: 'x' })), path).toBe('scope_denied');
    }
    expect(calls).toEqual([]);
  });

  it('a Read deny holds for the upstream read, and a wrong-typed target refuses the call', async () => {
    const loose: Tool = { name: 'read_text_file', inputSchema: { type: 'object', properties: { path: {} } }, annotations: { readOnlyHint: true } };
    const { calls, dispatch } = setup({ tools: [loose], rules: { deny: ['Read(./.env)'] } });
    expect(reasonOf(await dispatch('mcp_fs_read_text_file', { path: '.env' }))).toBe('rule_denied');
    expect(reasonOf(await dispatch('mcp_fs_read_text_file', { path: `${WORKSPACE}/.env` }))).toBe('rule_denied');
    const misfit = await dispatch('mcp_fs_read_text_file', { path: ['.env'] });
    expect(reasonOf(misfit)).toBe('target_unavailable');
    // The refusal says which target and why, and quotes no value.
    expect(!misfit.ok && misfit.error.message).toBe('Tool "mcp_fs_read_text_file" was refused: its target servers.fs.targets.read_text_file.path names a member that is not a string in the arguments.');
    expect(calls).toEqual([]);
    const outcome = await dispatch('mcp_fs_read_text_file', { path: 'README.md' });
    expect(outcome.ok).toBe(true);
    // Only what the definition sends marks its targets judged; the arguments are the client's, untouched.
    expect(calls).toEqual([{ server: 'fs', tool: 'read_text_file', arguments: { path: 'README.md' }, targetsJudged: true }]);
  });

  it("hands its paths to the host's resolver, whose refusal stops the call", async () => {
    const seen: ResolveTargetRequest[] = [];
    const resolve = (request: ResolveTargetRequest) => {
      seen.push(request);
      if (request.paths.some((path) => path.includes('.toolgate'))) throw new ToolPolicyError(request.tool, 'protected_path', { detail: 'is refused: the gateway keeps this file to itself' });
      return { files: request.paths.map((path) => ({ ...lexicalPath(path), path: path.replace(`${WORKSPACE}/`, ''), real: path.replace(`${WORKSPACE}/`, ''), outside: false })) };
    };
    const { calls, dispatch } = setup({ resolve, server: { ...fs, trust: 'annotations' } });
    expect(reasonOf(await dispatch('mcp_fs_read_text_file', { path: '.toolgate/console.json' }))).toBe('protected_path');
    expect(calls).toEqual([]);
    expect((await dispatch('mcp_fs_read_text_file', { path: 'notes.md' })).ok).toBe(true);
    // server-filesystem reads a relative path against its directory: that is the path the host is asked about,
    // before policy and again right before the call (the re-check of what was judged).
    expect(seen.map((request) => [request.access, request.paths])).toEqual([
      ['read', [`${WORKSPACE}/.toolgate/console.json`]],
      ['read', [`${WORKSPACE}/notes.md`]],
      ['read', [`${WORKSPACE}/notes.md`]],
    ]);
  });
});

describe('an upstream tool under the approval modes', () => {
  it('ask: every governed call reaches a person; a trusted read-only tool does not', async () => {
    const { asked, dispatch } = setup({ server: { ...fs, trust: 'annotations' } });
    expect((await dispatch('mcp_fs_write_file', { path: 'notes.md', content: 'x' })).ok).toBe(true);
    expect((await dispatch('mcp_fs_read_text_file', { path: 'notes.md' })).ok).toBe(true);
    expect(asked.map((request) => [request.toolName, request.action, request.preview.path])).toEqual([['mcp_fs_write_file', 'egress', 'notes.md']]);
  });

  it('plan: no governed call runs; a trusted read-only tool still does', async () => {
    const { asked, calls, dispatch } = setup({ mode: 'plan', server: { ...fs, trust: 'annotations' } });
    const write = await dispatch('mcp_fs_write_file', { path: 'notes.md', content: 'x' });
    expect(!write.ok && write.error.code).toBe('DENIED_BY_USER');
    expect((await dispatch('mcp_fs_read_text_file', { path: 'notes.md' })).ok).toBe(true);
    expect(calls.map((call) => call.tool)).toEqual(['read_text_file']);
    expect(asked).toEqual([]);
  });

  it('accept-edits: an upstream write is another program\'s write, so it asks', async () => {
    const { asked, dispatch } = setup({ mode: 'accept-edits' });
    expect((await dispatch('mcp_fs_write_file', { path: 'notes.md', content: 'x' })).ok).toBe(true);
    expect(asked.map((request) => request.toolName)).toEqual(['mcp_fs_write_file']);
  });

  it("auto: a rule naming the upstream tool runs it; a built-in's allow rule does not", async () => {
    const byName = setup({ mode: 'auto', rules: { allow: ['mcp__fs__write_file(path:./notes/**)'] } });
    expect((await byName.dispatch('mcp_fs_write_file', { path: 'notes/a.md', content: 'x' })).ok).toBe(true);
    expect(byName.asked).toEqual([]);
    const byBuiltin = setup({ mode: 'auto', rules: { allow: ['Write(./notes/**)'] } });
    expect((await byBuiltin.dispatch('mcp_fs_write_file', { path: 'notes/a.md', content: 'x' })).ok).toBe(true);
    expect(byBuiltin.asked.map((request) => request.toolName)).toEqual(['mcp_fs_write_file']);
  });
});
