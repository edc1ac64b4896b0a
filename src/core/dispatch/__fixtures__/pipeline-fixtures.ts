import { z } from 'zod';
import { createFakeHost, type FakeHost } from '../../../testing/index.js';
import type { Journal, JournalClaim, JournalPrepareInput, JournalSettleInput, RecordedResult } from '../../journal/journal-types.js';
import type { ArgumentPolicyInput, IdentityPolicyInput, PolicyDecision, ToolPolicy } from '../../policy/policy-types.js';
import { createToolRegistry } from '../../registry/create-tool-registry.js';
import type { CreateToolRegistryOptions, ToolRegistry } from '../../registry/registry-types.js';
import { defineTool } from '../../tools/define-tool.js';
import type { AnyToolDefinition } from '../../tools/tool-types.js';

/** A secret that every redaction pattern set recognises (OpenAI key shape). */
export const SECRET = 'sk-proj-Zq8vT3xW9yB2nL5mK7pR4sD1fG6hJ0aQ';

export const ALLOW: PolicyDecision = Object.freeze({ kind: 'allow', matched: Object.freeze([]) });

/** A policy that records what it was shown and answers from functions. */
export interface RecordingPolicy extends ToolPolicy {
  readonly identityCalls: IdentityPolicyInput[];
  readonly argumentCalls: ArgumentPolicyInput[];
}

export function recordingPolicy(
  decide: { identity?: (input: IdentityPolicyInput) => PolicyDecision; arguments?: (input: ArgumentPolicyInput) => PolicyDecision } = {},
): RecordingPolicy {
  const identityCalls: IdentityPolicyInput[] = [];
  const argumentCalls: ArgumentPolicyInput[] = [];
  return {
    version: 7,
    identityCalls,
    argumentCalls,
    decideIdentity(input) {
      identityCalls.push(input);
      return decide.identity?.(input) ?? ALLOW;
    },
    decideArguments(input) {
      argumentCalls.push(input);
      return decide.arguments?.(input) ?? ALLOW;
    },
  };
}

/** A journal in memory that records every call, for the effect-bracket ordering tests. */
export interface MemoryJournal extends Journal {
  readonly log: string[];
  readonly prepared: JournalPrepareInput[];
  readonly settled: { claim: JournalClaim | undefined; input: JournalSettleInput }[];
}

export function memoryJournal(): MemoryJournal {
  const log: string[] = [];
  const prepared: JournalPrepareInput[] = [];
  const settled: MemoryJournal['settled'] = [];
  const recorded = new Map<string, RecordedResult>();
  let claims = 0;
  return {
    log,
    prepared,
    settled,
    prepare(input) {
      log.push(`prepare:${input.callId}`);
      prepared.push(input);
      const found = recorded.get(input.key);
      if (found !== undefined) return Promise.resolve({ status: 'recorded', recorded: found });
      claims += 1;
      return Promise.resolve({ status: 'claimed', claim: { key: input.key, claimId: `claim-${claims}` } });
    },
    settle(claim, input) {
      log.push(`settle:${claim?.claimId ?? 'record'}`);
      settled.push({ claim, input });
      if (claim !== undefined) recorded.set(claim.key, { ok: input.ok, value: input.value, content: input.content, receipt: input.receipt, ...(input.error === undefined ? {} : { error: input.error }), ...(input.attachments === undefined ? {} : { attachments: input.attachments }) });
      return Promise.resolve();
    },
    discard(claim) {
      log.push(`discard:${claim.claimId}`);
      return Promise.resolve();
    },
    lookup: (key) => Promise.resolve(recorded.get(key)),
    append: () => Promise.resolve(),
    unresolved: () => Promise.resolve([]),
    verify: () => Promise.resolve({ ok: true, rows: 0 }),
  };
}

export const addTool = defineTool({
  name: 'add',
  description: 'Add two numbers.',
  input: z.object({ a: z.number(), b: z.number() }),
  isConcurrencySafe: () => true,
  dispatch: ({ a, b }) => a + b,
});

/** A governed process tool whose command is model-controlled. */
export const runCommandTool = defineTool({
  name: 'run_command',
  description: 'Run a command.',
  input: z.object({ command: z.string(), token: z.string().optional() }),
  policy: { spawnsProcess: true },
  policyTarget: (args) => ({ command: args.command }),
  dispatch: async ({ command }, host, context) => {
    const [program = '', ...rest] = command.split(' ');
    const result = await host.process?.spawn(program, rest, {}, {}, context.signal ?? undefined);
    return { exitCode: result?.exitCode ?? null, stdout: result?.stdout ?? '' };
  },
});

export const writeFileTool = defineTool({
  name: 'write_file',
  description: 'Write a file.',
  input: z.object({ path: z.string(), content: z.string() }),
  policy: { fsScoped: true, fsWrite: true },
  policyTarget: (args) => ({ path: args.path }),
  dispatch: async ({ path, content }, host, context) => host.fs?.writeFile(path, content, {}, context.signal ?? undefined),
});

export const fetchTool = defineTool({
  name: 'fetch_url',
  description: 'Fetch a URL.',
  input: z.object({ url: z.string() }),
  policy: { egress: 'http' },
  policyTarget: (args) => ({ url: args.url }),
  dispatch: async ({ url }, host, context) => (await host.egress?.fetch({ method: 'GET', url }, context.signal ?? undefined))?.body,
});

export const notifyTool = defineTool({
  name: 'notify',
  description: 'Show a notification.',
  input: z.object({ title: z.string() }),
  policy: { os: true },
  dispatch: async ({ title }, host, context) => host.os?.notify(title, '', context.signal ?? undefined),
});

export const readFileTool = defineTool({
  name: 'read_file',
  description: 'Read a file.',
  input: z.object({ path: z.string() }),
  policy: { fsScoped: true },
  facts: { readOnly: true, idempotent: true },
  policyTarget: (args) => ({ path: args.path }),
  isConcurrencySafe: () => true,
  dispatch: async ({ path }, host, context) => (await host.fs?.readFile(path, {}, context.signal ?? undefined))?.content,
});

export interface Harness {
  readonly registry: ToolRegistry;
  readonly host: FakeHost;
  readonly policy: RecordingPolicy;
}

/** A registry over a fake host and a recording (allow-all unless told) policy. */
export function harness(tools: readonly AnyToolDefinition[], options: Partial<CreateToolRegistryOptions> & { policy?: RecordingPolicy; host?: FakeHost } = {}): Harness {
  const host = options.host ?? createFakeHost();
  const policy = options.policy ?? recordingPolicy();
  const registry = createToolRegistry({ ...options, tools, host, policy });
  return { registry, host, policy };
}

/** Every tool name, granted. */
export function grantAll(...tools: readonly AnyToolDefinition[]): string[] {
  return tools.map((tool) => tool.name);
}

/** A promise with its resolvers exposed. */
export function deferred<T>(): { promise: Promise<T>; resolve: (value: T) => void; reject: (error: unknown) => void } {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/**
 * A state of about 64 KB of JSON, a tool that reads it (with `read`'s
 * fields) and one that trims it to 10 items: a value that changes after a
 * call rendered it.
 */
export function sharedState(read: Partial<AnyToolDefinition> = {}): { readonly state: { items: string[] }; readonly tools: AnyToolDefinition[] } {
  const state = { items: Array.from({ length: 1200 }, (_, index) => `item-${index}-`.padEnd(50, 'x')) };
  const input = { type: 'object', properties: {} } as const;
  const trim = (): string => {
    state.items = state.items.slice(0, 10);
    return 'ok';
  };
  return {
    state,
    tools: [
      { name: 'get_state', description: 'Read the state.', input, dispatch: () => state, ...read } as AnyToolDefinition,
      { name: 'trim_state', description: 'Trim the state.', input, dispatch: trim },
    ],
  };
}

/** The host's spill takes a while, as a file write does: a call waits there after rendering its value. */
export function slowSpill(host: FakeHost): FakeHost {
  host.script('outputStore.spill', { delayMs: 30, respond: (length) => ({ handle: 'spill:slow', bytes: length }) });
  return host;
}
