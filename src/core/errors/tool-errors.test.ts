import { type } from 'arktype';
import fc from 'fast-check';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { harness, recordingPolicy } from '../dispatch/__fixtures__/pipeline-fixtures.js';
import { defineTool } from '../tools/define-tool.js';
import type { AnyToolDefinition } from '../tools/tool-types.js';
import { scrubIssueMessage } from './describe-issues.js';
import {
  ConfigurationError,
  DuplicateToolError,
  ToolArgsInvalidError,
  ToolCancelledError,
  ToolDeniedByUserError,
  ToolExecutionError,
  ToolOutputInvalidError,
  ToolPolicyError,
  ToolTimeoutError,
  ToolUnavailableError,
  UnknownToolError,
} from './tool-errors.js';
import { ToolgateError } from './toolgate-error.js';

describe('the error taxonomy', () => {
  it('codes and flags', () => {
    const flags = (error: ToolgateError) => [error.code, error.retryable, error.recoverable, error.loopCorrectable];
    expect(flags(new UnknownToolError('x', []))).toEqual(['UNKNOWN_TOOL', false, false, true]);
    expect(flags(new DuplicateToolError('x'))).toEqual(['DUPLICATE_TOOL', false, false, false]);
    expect(flags(new ToolPolicyError('x', 'not_granted'))).toEqual(['POLICY_DENIED', false, false, false]);
    expect(flags(new ToolPolicyError('x', 'scope_denied', { recoverable: true }))).toEqual(['POLICY_DENIED', false, true, false]);
    expect(flags(new ToolPolicyError('x', 'rate_limited', { retryAfterMs: 100 }))).toEqual(['POLICY_DENIED', true, false, false]);
    for (const reason of ['user_rejected', 'no_approval_hook', 'approval_error'] as const) {
      expect(flags(new ToolDeniedByUserError('x', reason))).toEqual(['DENIED_BY_USER', false, false, false]);
    }
    expect(flags(new ToolArgsInvalidError('x', []))).toEqual(['ARGS_INVALID', false, false, true]);
    expect(flags(new ToolUnavailableError('x', 'fs'))).toEqual(['TOOL_UNAVAILABLE', false, false, false]);
    expect(flags(new ToolExecutionError('x'))).toEqual(['EXECUTION_FAILED', true, false, false]);
    expect(flags(new ToolExecutionError('x', { recoverable: true }))).toEqual(['EXECUTION_FAILED', true, true, false]);
    expect(flags(new ToolTimeoutError('x', 5))).toEqual(['TOOL_TIMEOUT', true, false, false]);
    expect(flags(new ToolCancelledError('x', 'before-dispatch'))).toEqual(['ABORTED_BEFORE_DISPATCH', false, false, false]);
    expect(flags(new ToolCancelledError('x', 'after-dispatch'))).toEqual(['ABORTED', false, false, false]);
    expect(flags(new ToolOutputInvalidError('x', []))).toEqual(['OUTPUT_INVALID', false, false, false]);
    expect(new ToolPolicyError('x', 'not_granted').reason).toBe('not_granted');
    expect(new ToolPolicyError('x', 'not_granted').name).toBe('ToolPolicyError');
  });

  it('isInstance works across copies by a global brand; toJSON holds no cause', () => {
    const error = new ToolExecutionError('x', { cause: new Error('secret stack') });
    expect(ToolgateError.isInstance(error)).toBe(true);
    expect(ToolgateError.isInstance(new Error('x'))).toBe(false);
    expect(ToolgateError.isInstance({ [Symbol.for('toolgate.error')]: true })).toBe(true);
    expect(JSON.stringify(error.toJSON())).not.toContain('secret stack');
    expect(new ConfigurationError('a', 'b').code).toBe('CONFIGURATION_INVALID');
  });

  it('ToolExecutionError is recoverable only for an idempotent read', async () => {
    const make = (name: string, extra: Partial<AnyToolDefinition>): AnyToolDefinition =>
      defineTool({ name, description: name, input: z.object({}), dispatch: () => Promise.reject(new Error('io')), ...extra });
    const tools = [
      make('plain_read', {}),
      make('writer', { policy: { fsWrite: true } }),
      make('spawner', { policy: { spawnsProcess: true } }),
      make('fetcher', { policy: { egress: 'http' } }),
      make('clip', { policy: { os: true } }),
      make('external_read', { effect: 'external' }),
    ];
    const { registry } = harness(tools, { policy: recordingPolicy() });
    const recoverable: Record<string, boolean> = {};
    for (const tool of tools) {
      const outcome = await registry.dispatch({ callId: 'c', name: tool.name, arguments: {} }, { grantedTools: tools.map((entry) => entry.name) });
      if (!outcome.ok) recoverable[tool.name] = outcome.error.recoverable;
    }
    expect(recoverable).toEqual({ plain_read: true, writer: false, spawner: false, fetcher: false, clip: false, external_read: false });
  });

  it('scrubs values echoed by validators (zod, valibot, arktype, ajv phrasing)', () => {
    const secret = 'sk-"quoted"-SECRET-1234567';
    for (const message of [
      `Invalid type: Expected number but received "${secret}"`,
      `e must be "a" or "b" (was "${secret}")`,
      `Unrecognized keys: "${secret}", "b"`,
      `value at ["${secret}"] must be removed`,
      `got ${secret}`,
    ]) {
      expect(scrubIssueMessage(message)).not.toContain('SECRET');
    }
    expect(scrubIssueMessage('Invalid input: expected number, received string')).toBe('Invalid input: expected number, received string');
    expect(scrubIssueMessage('n must be a number (was a string)')).toBe('n must be a number (was a string)');
  });
});

/** Secret-looking strings: vendor prefixes and plain high-entropy tokens, quotes included. */
const secretString = fc.oneof(
  fc.stringMatching(/^sk-[A-Za-z0-9]{24,40}$/),
  fc.stringMatching(/^ghp_[A-Za-z0-9]{36}$/),
  fc.stringMatching(/^[A-Za-z0-9"'`\\(){}[\]]{12,40}$/),
);

const schemaTools = [
  defineTool({
    name: 'zod_tool',
    description: 'zod',
    input: z.strictObject({ n: z.number(), e: z.enum(['a', 'b']), l: z.literal('x'), m: z.string().max(3), r: z.string().regex(/^a$/), u: z.url(), rec: z.record(z.string(), z.number()) }),
    dispatch: () => 'ran',
  }),
  defineTool({
    name: 'valibot_tool',
    description: 'valibot',
    input: v.strictObject({ n: v.number(), e: v.picklist(['a', 'b']), l: v.literal('x'), m: v.pipe(v.string(), v.maxLength(3)), r: v.pipe(v.string(), v.regex(/^a$/)), u: v.pipe(v.string(), v.url()), rec: v.record(v.string(), v.number()) }),
    inputJsonSchema: { type: 'object' },
    dispatch: () => 'ran',
  }),
  defineTool({
    name: 'arktype_tool',
    description: 'arktype',
    input: type({ n: 'number', e: "'a'|'b'", l: "'x'", m: 'string <= 3', r: /^a$/, u: 'string.url', rec: 'Record<string, number>', '+': 'reject' }),
    inputJsonSchema: { type: 'object' },
    dispatch: () => 'ran',
  }),
  defineTool({
    name: 'json_tool',
    description: 'JSON Schema',
    input: {
      type: 'object',
      additionalProperties: false,
      properties: { n: { type: 'number' }, e: { enum: ['a', 'b'] }, l: { const: 'x' }, m: { type: 'string', maxLength: 3 }, r: { type: 'string', pattern: '^a$' }, u: { type: 'string', minLength: 200 }, rec: { type: 'object', additionalProperties: { type: 'number' } } },
    },
    dispatch: () => 'ran',
  }),
];

describe('messages never hold an argument value (property)', () => {
  it('invalid-argument outcomes, for every validator family', async () => {
    const { registry } = harness(schemaTools);
    const grantedTools = schemaTools.map((tool) => tool.name);
    await fc.assert(
      fc.asyncProperty(secretString, fc.constantFrom(...grantedTools), async (secret, name) => {
        const args = { n: secret, e: secret, l: secret, m: secret, r: secret, u: secret, rec: { [secret]: secret }, [secret]: secret };
        const outcome = await registry.dispatch({ callId: 'c', name, arguments: args }, { grantedTools });
        expect(outcome.ok).toBe(false);
        if (outcome.ok) return;
        expect(outcome.error.code).toBe('ARGS_INVALID');
        expect(outcome.error.message).not.toContain(secret);
        expect(JSON.stringify((outcome.error as ToolArgsInvalidError).issues)).not.toContain(secret);
        expect(JSON.stringify(outcome.error.toJSON())).not.toContain(secret);
      }),
      { numRuns: 150 },
    );
  });

  it('policy-denied outcomes', async () => {
    const tool = defineTool({
      name: 'run',
      description: 'Run.',
      input: z.object({ command: z.string() }),
      policy: { spawnsProcess: true },
      policyTarget: (args) => ({ command: args.command }),
      dispatch: () => 'ran',
    });
    // The default floor: no command allowed.
    const { createToolRegistry } = await import('../registry/create-tool-registry.js');
    const registry = createToolRegistry({ tools: [tool] });
    await fc.assert(
      fc.asyncProperty(secretString, async (secret) => {
        const outcome = await registry.dispatch({ callId: 'c', name: 'run', arguments: { command: `deploy --token ${secret}` } }, { grantedTools: ['run'] });
        expect(outcome.ok ? 'OK' : outcome.error.code).toBe('POLICY_DENIED');
        if (outcome.ok) return;
        expect(outcome.error.message).not.toContain(secret);
        expect(outcome.receipt.outputSummary).not.toContain(secret);
      }),
      { numRuns: 100 },
    );
  });
});

describe('UnknownToolError names only what is plainly a tool name', () => {
  it('shows a misspelt tool name, and hides a secret-shaped one', () => {
    expect(new UnknownToolError('raed_file', ['read_file']).message).toContain('"raed_file"');
    const token = `ghp_${'a1B2'.repeat(9)}`;
    for (const name of [token, 'sk-proj-abcdefghijklmnopqrstuvwx', `AKIA${'A'.repeat(16)}`, 'a b', '../../etc/passwd']) {
      const message = new UnknownToolError(name, ['read_file']).message;
      expect(message).not.toContain(name);
      expect(message).toContain('not a valid tool name');
    }
  });
});
