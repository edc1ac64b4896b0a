/**
 * The dispatch pipeline against the bare call and the peers, one process,
 * interleaved rounds (see harness.ts). Every row executes the same tool
 * body; what differs is what surrounds it.
 *
 * - bare call: the body alone.
 * - bare zod parse + call: what a careful hand-written loop does; measured
 *   twice, on two schema instances, and the summary lines compare against
 *   the faster (V8 now and then leaves one of them deoptimised for a run).
 * - bare zod parse + call, as a promise: the same, returned the way every
 *   async tool API returns (dispatch does too): awaiting it costs the loop
 *   about 0.1 µs, which is not pipeline work.
 * - toolgate (zod) / (JSON Schema): `registry.dispatch` on the plain path
 *   (granted, allowed, journal `none`, no listener), arguments as an object;
 *   "(zod, JSON text)" passes the JSON string a model sends, beside "bare
 *   JSON.parse + zod + call".
 * - toolgate governed: an `os`-class tool, so approval (auto-approve hook,
 *   action digest over canonical JSON, `node:crypto` SHA-256 as the Node
 *   host supplies it), without a journal and with an in-memory effect
 *   journal; and once more with the Web Crypto fallback digests.
 * - AI SDK: `parseJSON` against the tool's input schema (what the AI SDK's
 *   tool-call parsing does: JSON parse + schema validation) then
 *   `executeTool` (@ai-sdk/provider-utils, the generator the AI SDK loop
 *   drains), with a JSON string as a model sends.
 * - OpenAI Agents: `tool()` → `FunctionTool.invoke(runContext, jsonString)`.
 * - LangChain: `tool()` → `.invoke(args)`.
 * - MCP: `client.callTool` to an `McpServer` over `InMemoryTransport`.
 */
import { asSchema, executeTool, parseJSON } from '@ai-sdk/provider-utils';
import { tool as langchainTool } from '@langchain/core/tools';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { RunContext, tool as agentsTool } from '@openai/agents';
import { tool as aiTool } from 'ai';
import { createToolRegistry, defineTool, type Journal, type JsonSchema, type RecordedResult, type ToolRegistry } from 'toolgate';
import { nodeSha256 } from 'toolgate/node';
import { z } from 'zod';
// Internal on purpose: the bounding stage alone, as stage 17 runs it.
import { boundText } from '../dist/core/internal.js';
import { bench, checkGoal, cpuTimes, formatNs, type BenchCase, type BenchRow } from './harness.js';

// ---------- the two workloads ----------

// A factory per workload: every row gets its own schema instance, so one library's use of a
// schema (conversion, caching, async parsing) cannot deoptimise another row's.
const addSchema = (): z.ZodObject => z.object({ a: z.number(), b: z.number() });
const addJsonSchema: JsonSchema = { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'], additionalProperties: false };
const add = ({ a, b }: { a: number; b: number }): number => a + b;
const addArgs = { a: 2, b: 3 };

const task = (): z.ZodObject => z.object({
  id: z.string(),
  title: z.string(),
  done: z.boolean(),
  estimateHours: z.number(),
  tags: z.array(z.string()),
  assignee: z.object({ login: z.string(), email: z.string(), team: z.string() }),
});
const issueSchema = () => z.object({
  repository: z.object({ owner: z.string(), name: z.string() }),
  title: z.string(),
  body: z.string(),
  labels: z.array(z.string()),
  priority: z.enum(['low', 'medium', 'high', 'urgent']),
  milestone: z.object({ id: z.number(), title: z.string(), due: z.string() }),
  tasks: z.array(task()),
  metadata: z.object({ source: z.string(), traceId: z.string(), createdBy: z.string(), draft: z.boolean() }),
});
type Issue = z.infer<ReturnType<typeof issueSchema>>;
const taskJson = {
  type: 'object',
  required: ['id', 'title', 'done', 'estimateHours', 'tags', 'assignee'],
  properties: {
    id: { type: 'string' },
    title: { type: 'string' },
    done: { type: 'boolean' },
    estimateHours: { type: 'number' },
    tags: { type: 'array', items: { type: 'string' } },
    assignee: { type: 'object', required: ['login', 'email', 'team'], properties: { login: { type: 'string' }, email: { type: 'string' }, team: { type: 'string' } } },
  },
};
const issueJsonSchema: JsonSchema = {
  type: 'object',
  required: ['repository', 'title', 'body', 'labels', 'priority', 'milestone', 'tasks', 'metadata'],
  properties: {
    repository: { type: 'object', required: ['owner', 'name'], properties: { owner: { type: 'string' }, name: { type: 'string' } } },
    title: { type: 'string' },
    body: { type: 'string' },
    labels: { type: 'array', items: { type: 'string' } },
    priority: { enum: ['low', 'medium', 'high', 'urgent'] },
    milestone: { type: 'object', required: ['id', 'title', 'due'], properties: { id: { type: 'number' }, title: { type: 'string' }, due: { type: 'string' } } },
    tasks: { type: 'array', items: taskJson },
    metadata: { type: 'object', required: ['source', 'traceId', 'createdBy', 'draft'], properties: { source: { type: 'string' }, traceId: { type: 'string' }, createdBy: { type: 'string' }, draft: { type: 'boolean' } } },
  },
};
const createIssue = (issue: Issue): { id: string; tasks: number } => ({ id: `${issue.repository.owner}/${issue.repository.name}#1`, tasks: issue.tasks.length });
const issueArgs: Issue = {
  repository: { owner: 'acme', name: 'platform' },
  title: 'Checkout latency regression after the payment provider migration',
  body: 'p95 checkout latency rose from 420 ms to 1.9 s after the migration. Traces show the new provider client opening a TLS connection per request; keep-alive is disabled by default in the adapter. '.repeat(3),
  labels: ['bug', 'performance', 'payments', 'regression', 'p1'],
  priority: 'urgent',
  milestone: { id: 42, title: 'Q3 reliability', due: '2026-09-30' },
  tasks: Array.from({ length: 8 }, (_, index) => ({
    id: `T-${100 + index}`,
    title: `Investigate connection reuse in service ${index}`,
    done: index % 3 === 0,
    estimateHours: 1.5 + index,
    tags: ['backend', 'latency'],
    assignee: { login: `dev${index}`, email: `dev${index}@acme.example`, team: 'payments' },
  })),
  metadata: { source: 'agent', traceId: '4bf92f3577b34da6a3ce929d0e0e4736', createdBy: 'triage-agent', draft: false },
};
const issueJson = JSON.stringify(issueArgs);
const addJson = JSON.stringify(addArgs);

// ---------- toolgate registries ----------

/** An in-memory journal: the governed row measures the pipeline, not SQLite. */
function memoryJournal(): Journal {
  const recorded = new Map<string, RecordedResult>();
  let claims = 0;
  return {
    prepare: (input) => {
      const found = recorded.get(input.key);
      claims += 1;
      return Promise.resolve(found === undefined ? { status: 'claimed', claim: { key: input.key, claimId: String(claims) } } : { status: 'recorded', recorded: found });
    },
    settle: () => Promise.resolve(),
    discard: () => Promise.resolve(),
    lookup: (key) => Promise.resolve(recorded.get(key)),
    append: () => Promise.resolve(),
    unresolved: () => Promise.resolve([]),
    verify: () => Promise.resolve({ ok: true, rows: 0 }),
  };
}

interface Registries {
  readonly zod: ToolRegistry;
  readonly json: ToolRegistry;
  readonly observed: ToolRegistry;
  readonly governedBare: ToolRegistry;
  readonly governed: ToolRegistry;
  readonly governedWebCrypto: ToolRegistry;
}

function registries(name: string, schema: () => z.ZodObject, jsonSchemaInput: JsonSchema, body: (args: never) => unknown): Registries {
  const dispatch = (args: unknown): unknown => body(args as never);
  const zodTool = defineTool({ name, description: 'benchmark tool', input: schema(), dispatch });
  const jsonTool = defineTool({ name, description: 'benchmark tool', input: jsonSchemaInput, dispatch });
  // An `os`-class tool is governed: approval under the regime and an effect-tier journal.
  const governedTool = defineTool({ name, description: 'benchmark tool', input: schema(), policy: { os: true }, dispatch });
  return {
    zod: createToolRegistry({ tools: [zodTool] }),
    json: createToolRegistry({ tools: [jsonTool] }),
    // The same plain path with one listener attached: what observing costs (with none, one flag is read).
    observed: observedRegistry(createToolRegistry({ tools: [defineTool({ name, description: 'benchmark tool', input: schema(), dispatch })] })),
    governedBare: createToolRegistry({ tools: [governedTool], sha256: nodeSha256 }),
    governed: createToolRegistry({ tools: [governedTool], journal: memoryJournal(), sha256: nodeSha256 }),
    governedWebCrypto: createToolRegistry({ tools: [governedTool], journal: memoryJournal() }),
  };
}

function observedRegistry(registry: ToolRegistry): ToolRegistry {
  registry.on('tool-call-started', () => undefined);
  return registry;
}

// ---------- peers ----------

async function mcpClient(name: string, shape: z.ZodRawShape, body: (args: never) => unknown): Promise<Client> {
  const server = new McpServer({ name: 'bench', version: '1.0.0' });
  server.registerTool(name, { description: 'benchmark tool', inputSchema: shape }, (args) => ({ content: [{ type: 'text', text: JSON.stringify(body(args as never)) }] }));
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'bench-client', version: '1.0.0' });
  await Promise.all([server.connect(serverTransport), client.connect(clientTransport)]);
  return client;
}

async function drain(generator: AsyncGenerator<{ type: string; output: unknown }>): Promise<unknown> {
  let output: unknown;
  for await (const part of generator) if (part.type === 'final') output = part.output;
  return output;
}

async function workloadCases(label: string, name: string, schema: () => z.ZodObject, jsonSchemaInput: JsonSchema, body: (args: never) => unknown, args: object, json: string): Promise<BenchCase[]> {
  const registry = registries(name, schema, jsonSchemaInput, body);
  const bareSchema = schema();
  const bareTwinSchema = schema();
  const barePromiseSchema = schema();
  const bareTextSchema = schema();
  const granted = { grantedTools: [name] };
  const governedContext = { grantedTools: [name], approval: { confirm: () => Promise.resolve({ outcome: 'approve' as const }) } };
  let callNumber = 0;
  const call = { callId: 'c', name, arguments: args };
  const textCall = { callId: 'c', name, arguments: json };

  const ai = aiTool({ description: 'benchmark tool', inputSchema: schema(), execute: (input: unknown) => body(input as never) });
  const aiInput = asSchema(ai.inputSchema);
  const agents = agentsTool({ name, description: 'benchmark tool', parameters: schema(), strict: true, execute: (input: unknown) => JSON.stringify(body(input as never)) });
  const runContext = new RunContext();
  const langchain = langchainTool((input: unknown) => JSON.stringify(body(input as never)), { name, description: 'benchmark tool', schema: schema() });
  const mcp = await mcpClient(name, schema().shape, body);

  return [
    { name: `${label}: bare call`, run: () => body(args as never) },
    { name: `${label}: bare zod parse + call`, run: () => body(bareSchema.parse(args) as never) },
    // The same work again on its own schema: V8 now and then leaves one bare parse deoptimised for a
    // whole run, and the summary compares against the faster of the two.
    { name: `${label}: bare zod parse + call, twin`, run: () => body(bareTwinSchema.parse(args) as never) },
    { name: `${label}: bare zod parse + call, as a promise`, run: () => Promise.resolve(body(barePromiseSchema.parse(args) as never)) },
    { name: `${label}: bare JSON.parse + zod + call`, run: () => body(bareTextSchema.parse(JSON.parse(json)) as never) },
    { name: `${label}: toolgate dispatch (zod)`, run: () => registry.zod.dispatch(call, granted) },
    { name: `${label}: toolgate dispatch (JSON Schema)`, run: () => registry.json.dispatch(call, granted) },
    { name: `${label}: toolgate dispatch (zod), one event listener`, run: () => registry.observed.dispatch(call, granted) },
    { name: `${label}: toolgate dispatch (zod, JSON text)`, run: () => registry.zod.dispatch(textCall, granted) },
    { name: `${label}: toolgate dispatch (JSON Schema, JSON text)`, run: () => registry.json.dispatch(textCall, granted) },
    // A fresh call id per call: a repeated id would replay from the journal.
    { name: `${label}: toolgate governed (approval, no journal)`, run: () => registry.governedBare.dispatch(call, governedContext) },
    { name: `${label}: toolgate governed (approval + journal)`, run: () => registry.governed.dispatch({ callId: `g${(callNumber += 1)}`, name, arguments: args }, governedContext) },
    { name: `${label}: toolgate governed (approval + journal), Web Crypto digests`, run: () => registry.governedWebCrypto.dispatch({ callId: `w${(callNumber += 1)}`, name, arguments: args }, governedContext) },
    {
      name: `${label}: AI SDK parseJSON + executeTool`,
      run: async () => {
        const input = await parseJSON({ text: json, schema: aiInput });
        return drain(executeTool({ execute: ai.execute as never, input: input as never, options: { toolCallId: 'c', messages: [] } }) as AsyncGenerator<{ type: string; output: unknown }>);
      },
    },
    { name: `${label}: OpenAI Agents FunctionTool.invoke`, run: () => agents.invoke(runContext, json) },
    { name: `${label}: LangChain tool.invoke`, run: () => langchain.invoke(args as Record<string, unknown>) },
    { name: `${label}: MCP client.callTool (in-memory)`, run: () => mcp.callTool({ name, arguments: args as Record<string, unknown> }) },
  ];
}

function row(rows: readonly BenchRow[], suffix: string): BenchRow {
  const found = rows.find((entry) => entry.name.endsWith(suffix));
  if (found === undefined) throw new Error(`no row ${suffix}`);
  return found;
}

function summarise(label: string, rows: readonly BenchRow[]): void {
  const bareZod = [row(rows, 'bare zod parse + call'), row(rows, 'bare zod parse + call, twin')].reduce((fastest, candidate) => (candidate.medianNs < fastest.medianNs ? candidate : fastest));
  const barePromise = row(rows, 'bare zod parse + call, as a promise');
  const zodRow = row(rows, 'toolgate dispatch (zod)');
  const jsonRow = row(rows, 'toolgate dispatch (JSON Schema)');
  const bareText = row(rows, 'bare JSON.parse + zod + call');
  const textRow = row(rows, 'toolgate dispatch (zod, JSON text)');
  const jsonTextRow = row(rows, 'toolgate dispatch (JSON Schema, JSON text)');
  const lines = [
    `${label}: toolgate overhead beyond validation (zod, p50) = ${formatNs(zodRow.medianNs - bareZod.medianNs)}; beyond validation and the promise an async API returns = ${formatNs(zodRow.medianNs - barePromise.medianNs)}; from JSON text = ${formatNs(textRow.medianNs - bareText.medianNs)} (${(textRow.medianNs / bareText.medianNs).toFixed(2)}× bare JSON.parse + zod + call)`,
    `${label}: toolgate (zod) = ${(zodRow.medianNs / bareZod.medianNs).toFixed(2)}× bare zod parse + call; JSON Schema = ${(jsonRow.medianNs / bareZod.medianNs).toFixed(2)}×; from JSON text, JSON Schema = ${(jsonTextRow.medianNs / bareText.medianNs).toFixed(2)}× bare JSON.parse + zod + call`,
    `${label}: toolgate (zod) ${Math.round(zodRow.opsPerSecond).toLocaleString('en-US')} calls/s; JSON Schema ${Math.round(jsonRow.opsPerSecond).toLocaleString('en-US')} calls/s`,
    `${label}: one tool-call-started listener adds ${formatNs(row(rows, 'toolgate dispatch (zod), one event listener').medianNs - zodRow.medianNs)} per call`,
    `${label}: governed with node:crypto digests ${formatNs(row(rows, 'toolgate governed (approval + journal)').medianNs)}; with Web Crypto ${formatNs(row(rows, 'Web Crypto digests').medianNs)}`,
  ];
  for (const peer of ['AI SDK parseJSON + executeTool', 'OpenAI Agents FunctionTool.invoke', 'LangChain tool.invoke', 'MCP client.callTool (in-memory)']) {
    const peerRow = row(rows, peer);
    lines.push(`${label}: ${peer} = ${(peerRow.medianNs / bareZod.medianNs).toFixed(2)}× bare zod; ${(peerRow.medianNs / zodRow.medianNs).toFixed(1)}× toolgate (zod)`);
  }
  console.log(lines.join('\n'));
  if (label === 'add') {
    checkGoal('plain add: overhead beyond zod (p50)', zodRow.medianNs - bareZod.medianNs, 500, 'ns');
    checkGoal('governed add, auto-approving confirm, no journal', row(rows, 'toolgate governed (approval, no journal)').medianNs, 10_000, 'ns');
  } else {
    checkGoal('plain 2.6 KB payload vs bare zod', zodRow.medianNs / bareZod.medianNs, 1.05, '×');
    // With a compiled JSON Schema the payload should cost less than zod's own parse of it.
    checkGoal('plain 2.6 KB payload, JSON Schema, vs bare zod', jsonRow.medianNs / bareZod.medianNs, 1, '×');
  }
}

export async function run(): Promise<void> {
  const addCases = await workloadCases('add', 'add', addSchema, addJsonSchema, add, addArgs, addJson);
  const addRows = await bench(addCases, { title: 'add (two numbers)', baseline: 'add: bare zod parse + call', batch: 2000, rounds: 25 });
  summarise('add', addRows);
  // On a shared machine wall time also counts the wait for a core; CPU time does not.
  const governedAdd = addCases.find((entry) => entry.name === 'add: toolgate governed (approval, no journal)') as BenchCase;
  checkGoal('governed add, auto-approving confirm, no journal, CPU', (await cpuTimes([governedAdd], { batch: 2000 })).get(governedAdd.name) ?? Number.NaN, 10_000, 'ns');

  const issueCases = await workloadCases('issue', 'create_issue', issueSchema, issueJsonSchema, createIssue, issueArgs, issueJson);
  console.log(`\nrealistic payload: ${new TextEncoder().encode(issueJson).length} bytes of JSON`);
  const issueRows = await bench(issueCases, { title: 'create_issue (≈2.5 KB nested)', baseline: 'issue: bare zod parse + call', batch: 500, rounds: 25 });
  summarise('issue', issueRows);

  const tenMegabytes = 'log line with some text in it, ünïcödé too\n'.repeat(Math.ceil((10 * 1024 * 1024) / 44));
  const limits = { maxBytes: 32 * 1024, maxLines: 2000 };
  const wide = 'x'.repeat(10 * 1024 * 1024);
  const bounding = await bench(
    [
      { name: 'boundText 10 MB (many lines) → 2,000 lines', run: () => boundText(tenMegabytes, limits) },
      { name: 'boundText 10 MB (one line) → 32 KiB', run: () => boundText(wide, limits) },
    ],
    { title: 'bounding 10 MB (goal ≤ 25 µs)', batch: 200, rounds: 15 },
  );
  checkGoal('bounding 10 MB to a preview, many lines', row(bounding, '(many lines) → 2,000 lines').medianNs, 25_000, 'ns');
  checkGoal('bounding 10 MB to a preview, one line', row(bounding, '(one line) → 32 KiB').medianNs, 25_000, 'ns');
}
