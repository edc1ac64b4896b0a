import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../tools/define-tool.js';
import { unwrapUntrusted } from '../untrusted/untrusted.js';
import { ToolPolicyError, ToolUnavailableError } from '../errors/tool-errors.js';
import { requireCapability } from '../host/require-capability.js';
import { createFakeHost } from '../../testing/index.js';
import {
  addTool,
  grantAll,
  harness,
  memoryJournal,
  readFileTool,
  recordingPolicy,
  runCommandTool,
  writeFileTool,
} from './__fixtures__/pipeline-fixtures.js';

const granted = grantAll(addTool, runCommandTool, writeFileTool, readFileTool);

describe('registry.dispatch: one outcome per call, stage by stage', () => {
  it('runs a plain call and returns the value and untrusted content', async () => {
    const { registry } = harness([addTool]);
    const outcome = await registry.dispatch({ callId: 'c1', name: 'add', arguments: '{"a":2,"b":3}' }, { grantedTools: ['add'] });
    expect(outcome.ok).toBe(true);
    if (!outcome.ok) return;
    expect(outcome.value).toBe(5);
    expect(unwrapUntrusted(outcome.content)).toBe('5');
  });

  it('stage 1: refuses a provider-executed call before resolving it', async () => {
    const { registry, policy } = harness([addTool]);
    const outcome = await registry.dispatch({ callId: 'c', name: 'add', arguments: {}, providerExecuted: true }, { grantedTools: granted });
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    expect(outcome.error.code).toBe('POLICY_DENIED');
    expect(outcome.error).toMatchObject({ reason: 'provider_executed' });
    expect(policy.identityCalls).toHaveLength(0);
  });

  it('stage 2: an unknown name is loop-correctable and lists only granted, visible names; never fuzzy', async () => {
    const { registry } = harness([addTool, readFileTool]);
    const outcome = await registry.dispatch({ callId: 'c', name: 'Add', arguments: {} }, { grantedTools: ['add'] });
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    expect(outcome.error.code).toBe('UNKNOWN_TOOL');
    expect(outcome.error.loopCorrectable).toBe(true);
    expect(outcome.error).toMatchObject({ availableTools: ['add'] });
  });

  it('stage 3: registered is not granted (absent grants, array and Set)', async () => {
    const { registry, policy } = harness([addTool]);
    for (const grantedTools of [undefined, [], new Set<string>(['other'])]) {
      const outcome = await registry.dispatch({ callId: 'c', name: 'add', arguments: { a: 1, b: 2 } }, grantedTools === undefined ? {} : { grantedTools });
      expect(outcome.ok ? 'OK' : outcome.error.code).toBe('POLICY_DENIED');
      if (!outcome.ok) expect(outcome.error).toMatchObject({ reason: 'not_granted' });
    }
    const viaSet = await registry.dispatch({ callId: 'c', name: 'add', arguments: { a: 1, b: 2 } }, { grantedTools: new Set(['add']) });
    expect(viaSet.ok).toBe(true);
    expect(policy.identityCalls).toHaveLength(1);
  });

  it('stage 4: identity rules run before the input is parsed (deny + invalid arguments → POLICY_DENIED, not ARGS_INVALID)', async () => {
    const policy = recordingPolicy({ identity: () => ({ kind: 'deny', reason: 'rule_denied', matched: [{ id: 'no-add', source: 'test', decision: 'deny' }] }) });
    const { registry, host } = harness([addTool], { policy });
    const outcome = await registry.dispatch({ callId: 'c', name: 'add', arguments: '{not json' }, { grantedTools: granted });
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    expect(outcome.error.code).toBe('POLICY_DENIED');
    expect(outcome.error).toMatchObject({ reason: 'rule_denied', ruleId: 'no-add' });
    expect(policy.argumentCalls).toHaveLength(0);
    expect(host.calls).toHaveLength(0);
    expect(outcome.receipt.policy.rules).toEqual([{ id: 'no-add', source: 'test', decision: 'deny' }]);
  });

  it('stages 5–6: malformed JSON, non-object arguments and schema misses are ARGS_INVALID and loop-correctable', async () => {
    const { registry, policy } = harness([addTool]);
    const deep = `${'{"a":'.repeat(100)}1${'}'.repeat(100)}`;
    for (const args of ['{oops', '[1,2]', 42, { a: 'x', b: 1 }, { a: 1 }, deep, '{"a":1e400,"b":1}']) {
      const outcome = await registry.dispatch({ callId: 'c', name: 'add', arguments: args }, { grantedTools: granted });
      expect(outcome.ok).toBe(false);
      if (outcome.ok) continue;
      expect(outcome.error.code).toBe('ARGS_INVALID');
      expect(outcome.error.loopCorrectable).toBe(true);
    }
    expect(policy.argumentCalls).toHaveLength(0);
  });

  it('stage 6: bounds the canonical size of the effective arguments (default 64 KiB)', async () => {
    const echo = defineTool({ name: 'echo', description: 'Echo.', input: z.object({ text: z.string() }), dispatch: ({ text }) => text.length });
    const echoJson = defineTool({ name: 'echo_json', description: 'Echo.', input: { type: 'object', properties: { text: { type: 'string' } } }, dispatch: () => 'ok' });
    const governed = defineTool({ name: 'echo_os', description: 'Echo.', input: z.object({ text: z.string() }), policy: { os: true }, dispatch: ({ text }) => text.length });
    const { registry, host } = harness([echo, echoJson, governed]);
    const grantedTools = ['echo', 'echo_json', 'echo_os'];
    const code = (outcome: { ok: boolean; error?: { code: string } }): string => (outcome.ok ? 'OK' : (outcome.error?.code ?? '?'));
    const big = { text: 'x'.repeat(70_000) };
    // What a model sends (JSON text) is always bounded.
    expect(code(await registry.dispatch({ callId: 'c', name: 'echo', arguments: JSON.stringify({ text: 'x'.repeat(60_000) }) }, { grantedTools }))).toBe('OK');
    const tooBig = await registry.dispatch({ callId: 'c', name: 'echo', arguments: JSON.stringify(big) }, { grantedTools });
    expect(code(tooBig)).toBe('ARGS_INVALID');
    if (!tooBig.ok) expect(tooBig.error.message).toContain('65536 bytes');
    // A caller's object is bounded when it is copied (JSON Schema) or digested (approval, journal).
    expect(code(await registry.dispatch({ callId: 'c', name: 'echo_json', arguments: big }, { grantedTools }))).toBe('ARGS_INVALID');
    expect(code(await registry.dispatch({ callId: 'c', name: 'echo_os', arguments: big }, { grantedTools, approval: { approvedActionDigests: [] } }))).toBe('ARGS_INVALID');
    expect(host.calls).toEqual([]);
  });

  it('stage 6: a value with no JSON form that a validator lets through fails closed once it must be digested', async () => {
    const loose = defineTool({ name: 'loose', description: 'Loose.', input: z.object({ data: z.any() }), policy: { os: true }, dispatch: () => 'ran' });
    const { registry } = harness([loose]);
    const outcome = await registry.dispatch({ callId: 'c', name: 'loose', arguments: { data: 1n } }, { grantedTools: ['loose'], approval: { confirm: () => Promise.resolve({ outcome: 'approve' as const }) } });
    expect(outcome.ok ? 'OK' : outcome.error.code).toBe('ARGS_INVALID');
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    const plan = await registry.prepare({ callId: 'c', name: 'loose', arguments: { data: cyclic } }, { grantedTools: ['loose'] });
    expect(plan).toMatchObject({ status: 'denied', error: { code: 'ARGS_INVALID' } });
  });

  it('stage 6: refuses a secret-tainted key, naming the key but never its value', async () => {
    const { registry, host } = harness([runCommandTool]);
    const outcome = await registry.dispatch(
      { callId: 'c', name: 'run_command', arguments: { command: 'ls', token: 'hunter2-very-secret' } },
      { grantedTools: granted, secretArgKeys: ['token'] },
    );
    expect(outcome.ok ? 'OK' : outcome.error.code).toBe('ARGS_INVALID');
    if (!outcome.ok) {
      expect(outcome.error.message).toContain('token');
      expect(outcome.error.message).not.toContain('hunter2');
    }
    expect(host.calls).toHaveLength(0);
  });

  it('stage 7: policy never sees half-assembled arguments — a node with only inputMapping has its command checked', async () => {
    const policy = recordingPolicy({ arguments: (input) => (input.target?.command === 'rm -rf /' ? { kind: 'deny', reason: 'command_not_allowed', matched: [] } : { kind: 'allow', matched: [] }) });
    const { registry, host } = harness([runCommandTool], { policy });
    const outcome = await registry.dispatch(
      { callId: 'c', name: 'run_command' },
      { grantedTools: granted, config: { inputMapping: { command: 'plan.step' }, state: { plan: { step: 'rm -rf /' } } } },
    );
    expect(outcome.ok ? 'OK' : outcome.error.code).toBe('POLICY_DENIED');
    expect(policy.argumentCalls).toHaveLength(1);
    expect(policy.argumentCalls[0]?.args).toEqual({ command: 'rm -rf /' });
    expect(policy.argumentCalls[0]?.target).toEqual({ command: 'rm -rf /' });
    expect(host.calls).toHaveLength(0);
  });

  it('stage 5: config-only values win and a model cannot supply them', async () => {
    const seen: unknown[] = [];
    const tool = defineTool({
      name: 'query_db',
      description: 'Query.',
      input: z.object({ sql: z.string(), database: z.string() }),
      configOnly: ['database'],
      dispatch: (args) => {
        seen.push(args);
        return 'ok';
      },
    });
    const policy = recordingPolicy();
    const { registry } = harness([tool], { policy });
    await registry.dispatch({ callId: 'c', name: 'query_db', arguments: { sql: 'select 1', database: 'prod' } }, { grantedTools: ['query_db'], config: { values: { database: 'staging' } } });
    expect(seen).toEqual([{ sql: 'select 1', database: 'staging' }]);
    expect(policy.argumentCalls[0]?.args).toEqual({ sql: 'select 1', database: 'staging' });
    const missing = await registry.dispatch({ callId: 'c', name: 'query_db', arguments: { sql: 'select 1', database: 'prod' } }, { grantedTools: ['query_db'] });
    expect(missing.ok ? 'OK' : missing.error.code).toBe('ARGS_INVALID');
  });

  it('a denial never reaches the host', async () => {
    const policy = recordingPolicy({ arguments: () => ({ kind: 'deny', reason: 'scope_denied', recoverable: true, matched: [] }) });
    const { registry, host } = harness([writeFileTool, readFileTool], { policy });
    const write = await registry.dispatch({ callId: 'w', name: 'write_file', arguments: { path: '/etc/passwd', content: 'x' } }, { grantedTools: granted });
    const read = await registry.dispatch({ callId: 'r', name: 'read_file', arguments: { path: '../x' } }, { grantedTools: granted });
    expect([write, read].map((outcome) => (outcome.ok ? 'OK' : outcome.error.code))).toEqual(['POLICY_DENIED', 'POLICY_DENIED']);
    if (!read.ok) expect(read.error.recoverable).toBe(true);
    expect(host.calls).toEqual([]);
  });

  it('stage 7: a policyTarget that throws fails closed', async () => {
    const tool = defineTool({
      name: 'bad_target',
      description: 'Broken target.',
      input: z.object({}),
      policy: { spawnsProcess: true },
      policyTarget: () => {
        throw new Error('boom');
      },
      dispatch: () => 'ran',
    });
    const { registry } = harness([tool]);
    const outcome = await registry.dispatch({ callId: 'c', name: 'bad_target', arguments: {} }, { grantedTools: ['bad_target'] });
    expect(outcome.ok ? 'OK' : outcome.error).toMatchObject({ code: 'POLICY_DENIED', reason: 'target_unavailable' });
    // What it threw may quote the arguments: the refusal keeps it as the cause, never in its words.
    expect(outcome.ok ? 'OK' : outcome.error.message).toBe('Tool "bad_target" was refused: its policy target could not be computed.');
  });

  it('stage 7: a policyTarget that refuses with its own ToolPolicyError refuses with it', async () => {
    const refusal = new ToolPolicyError('worded_target', 'target_unavailable', { detail: 'was refused: its target options.path is inside a string' });
    const tool = defineTool({
      name: 'worded_target',
      description: 'Refuses its target in its own words.',
      input: z.object({}),
      policy: { spawnsProcess: true },
      policyTarget: () => {
        throw refusal;
      },
      dispatch: () => 'ran',
    });
    const { registry } = harness([tool]);
    const outcome = await registry.dispatch({ callId: 'c', name: 'worded_target', arguments: {} }, { grantedTools: ['worded_target'] });
    expect(outcome.ok ? 'OK' : outcome.error).toBe(refusal);
  });

  it('stage 11: a beforeDispatch refusal discards the prepared journal claim and never touches the host', async () => {
    const journal = memoryJournal();
    const { registry, host } = harness([writeFileTool], { journal });
    const outcome = await registry.dispatch(
      { callId: 'c1', name: 'write_file', arguments: { path: 'a.txt', content: 'x' } },
      {
        grantedTools: granted,
        beforeDispatch: () => {
          throw new Error('latch closed');
        },
      },
    );
    expect(outcome.ok ? 'OK' : outcome.error).toMatchObject({ code: 'POLICY_DENIED', reason: 'admission_refused' });
    expect(journal.log).toEqual(['prepare:c1', 'discard:claim-1']);
    expect(host.calls).toEqual([]);
  });

  it('stage 11: an async beforeDispatch cannot be honoured and refuses', async () => {
    const journal = memoryJournal();
    const { registry, host } = harness([writeFileTool], { journal });
    const outcome = await registry.dispatch(
      { callId: 'c1', name: 'write_file', arguments: { path: 'a.txt', content: 'x' } },
      { grantedTools: granted, beforeDispatch: (() => Promise.resolve()) as unknown as (name: string) => void },
    );
    expect(outcome.ok ? 'OK' : outcome.error.code).toBe('POLICY_DENIED');
    expect(journal.log).toEqual(['prepare:c1', 'discard:claim-1']);
    expect(host.calls).toEqual([]);
  });

  it('stage 10: an effect-tier call is claimed, settled, and a repeat replays without running again', async () => {
    const journal = memoryJournal();
    const { registry, host } = harness([writeFileTool], { journal });
    const call = { callId: 'c1', name: 'write_file', arguments: { path: 'a.txt', content: 'x' } };
    const first = await registry.dispatch(call, { grantedTools: granted });
    const second = await registry.dispatch(call, { grantedTools: granted });
    expect(first.ok && second.ok).toBe(true);
    expect(journal.log).toEqual(['prepare:c1', 'settle:claim-1', 'prepare:c1']);
    expect(host.calls).toHaveLength(1);
    expect(second.receipt.status).toBe('replayed');
    expect(journal.prepared[0]?.actionDigest).toMatch(/^[0-9a-f]{64}$/);
  });

  it('stage 10: a journal that fails to prepare fails the call closed, never rejects, never runs the body', async () => {
    const journal = memoryJournal();
    const broken = { ...journal, prepare: () => Promise.reject(new Error('disk full')) };
    const { registry, host } = harness([writeFileTool], { journal: broken });
    const outcome = await registry.dispatch({ callId: 'c1', name: 'write_file', arguments: { path: 'a.txt', content: 'x' } }, { grantedTools: granted });
    expect(outcome.ok ? 'OK' : outcome.error.code).toBe('TOOL_UNAVAILABLE');
    expect(host.calls).toEqual([]);
  });

  it('stage 12: a missing host capability is TOOL_UNAVAILABLE, passed through verbatim', async () => {
    const tool = defineTool({
      name: 'clip',
      description: 'Clipboard.',
      input: z.object({}),
      dispatch: async (_args, host, context) => requireCapability(host, 'os', 'clip').readClipboard(context.signal ?? undefined),
    });
    const { registry } = harness([tool], { host: createFakeHost({ without: ['os'] }) });
    const outcome = await registry.dispatch({ callId: 'c', name: 'clip', arguments: {} }, { grantedTools: ['clip'] });
    expect(outcome.ok).toBe(false);
    if (!outcome.ok) expect(outcome.error).toBeInstanceOf(ToolUnavailableError);
  });

  it('stage 12: a raw host throw becomes a retryable EXECUTION_FAILED with the cause kept off the message', async () => {
    const { registry, host } = harness([readFileTool, writeFileTool]);
    host.script('fs.readFile', { fault: new Error('EIO at /secret/path/of/host') });
    host.script('fs.writeFile', { fault: new Error('EIO at /secret/path/of/host') });
    const read = await registry.dispatch({ callId: 'r', name: 'read_file', arguments: { path: 'a' } }, { grantedTools: granted });
    const write = await registry.dispatch({ callId: 'w', name: 'write_file', arguments: { path: 'a', content: 'b' } }, { grantedTools: granted });
    for (const outcome of [read, write]) {
      expect(outcome.ok).toBe(false);
      if (outcome.ok) continue;
      expect(outcome.error.code).toBe('EXECUTION_FAILED');
      expect(outcome.error.retryable).toBe(true);
      expect(outcome.error.message).not.toContain('/secret/path');
      expect((outcome.error.cause as Error).message).toContain('EIO');
    }
    expect(!read.ok && read.error.recoverable).toBe(true);
    expect(!write.ok && write.error.recoverable).toBe(false);
  });

  it('stage 14: a result that misses the output schema is OUTPUT_INVALID', async () => {
    const tool = defineTool({ name: 'count', description: 'Count.', input: z.object({}), output: z.object({ n: z.number() }), dispatch: () => ({ n: 'many' }) as unknown as { n: number } });
    const { registry } = harness([tool]);
    const outcome = await registry.dispatch({ callId: 'c', name: 'count', arguments: {} }, { grantedTools: ['count'] });
    expect(outcome.ok ? 'OK' : outcome.error.code).toBe('OUTPUT_INVALID');
  });

  it('stage 15: outputMapping reads the FULL result, not the bounded preview', async () => {
    const big = 'y'.repeat(100_000);
    const tool = defineTool({ name: 'big', description: 'Big.', input: z.object({}), dispatch: () => ({ text: big, n: 1 }) });
    const { registry } = harness([tool]);
    const outcome = await registry.dispatch({ callId: 'c', name: 'big', arguments: {} }, { grantedTools: ['big'], config: { outputMapping: { full: 'text', all: '.' } } });
    expect(outcome.ok).toBe(true);
    if (!outcome.ok) return;
    expect((outcome.mapped?.full as string).length).toBe(100_000);
    expect(unwrapUntrusted(outcome.content).length).toBeLessThan(40_000);
  });

  it('a caller mutating its arguments after dispatch cannot change what policy and the body see', async () => {
    const seen: unknown[] = [];
    const tool = defineTool({
      name: 'slow',
      description: 'Slow.',
      input: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
      policyTarget: (args) => ({ path: String(args.path) }),
      dispatch: async (args) => {
        await new Promise((resolve) => setTimeout(resolve, 5));
        seen.push(args.path);
        return 'ok';
      },
    });
    const { registry } = harness([tool]);
    const args = { path: 'safe.txt' };
    const pending = registry.dispatch({ callId: 'c', name: 'slow', arguments: args }, { grantedTools: ['slow'] });
    args.path = '/etc/shadow';
    await pending;
    expect(seen).toEqual(['safe.txt']);
  });

  it('detaches the caller’s object for every validator kind: rebuilding (zod), returning its input (arktype), async', async () => {
    const { type } = await import('arktype');
    const sameObjectAsync = {
      '~standard': {
        version: 1 as const,
        vendor: 'test',
        // Async and hands its input back: the worst case for a time-of-check/time-of-use race.
        validate: (value: unknown) => new Promise<{ value: unknown }>((resolve) => setTimeout(() => resolve({ value }), 5)),
      },
    };
    const schemas = [
      ['zod', z.object({ path: z.string() })],
      ['arktype', type({ path: 'string' })],
      ['async', sameObjectAsync],
    ] as const;
    for (const [label, input] of schemas) {
      const seen: unknown[] = [];
      const policy = recordingPolicy();
      const tool = defineTool({
        name: 'slow',
        description: `Slow (${label}).`,
        input: input as typeof sameObjectAsync,
        inputJsonSchema: { type: 'object' },
        policyTarget: (args: unknown) => ({ path: String((args as { path: string }).path) }),
        dispatch: async (args: unknown) => {
          await new Promise((resolve) => setTimeout(resolve, 10));
          seen.push((args as { path: string }).path);
          return 'ok';
        },
      });
      const { registry } = harness([tool], { policy });
      const args = { path: 'safe.txt' };
      const pending = registry.dispatch({ callId: 'c', name: 'slow', arguments: args }, { grantedTools: ['slow'] });
      args.path = '/etc/shadow';
      await pending;
      expect([label, seen]).toEqual([label, [policy.argumentCalls[0]?.target?.path]]);
      expect(Object.isFrozen(args)).toBe(false); // the caller's own object is never frozen
    }
  });

  it('a malformed call envelope is the caller’s mistake and throws', () => {
    const { registry } = harness([addTool]);
    expect(() => registry.dispatch({ callId: '', name: 'add' })).toThrow(/callId/);
  });
});
