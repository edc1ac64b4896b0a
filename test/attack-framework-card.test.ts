// Runs against the built package (npm test builds first). A framework's own approval card (the AI SDK's
// tool-approval-request, an OpenAI Agents interruption) shows the model's arguments and nothing else: not where a
// link leads, not that the real target is protected. A repository that ships docs/notes.md as a link to
// .git/config gets the write a person approved for docs/notes.md planted in .git/config, unless the framework's
// approval stands only for calls whose targets its card shows.
import { linkSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, run, setTracingDisabled, Usage, type Model, type ModelResponse } from '@openai/agents';
import { generateText, type ModelMessage } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { createPolicy, createToolRegistry, type DispatchContext, type ToolApprovalRequest, type ToolRegistry } from 'toolgate';
import { toAISDKTools } from 'toolgate/ai-sdk';
import { createNodeHost, type NodeHost, readFileTool, writeFileTool } from 'toolgate/node';
import { toOpenAIAgentsTools } from 'toolgate/openai-agents';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';

const GIT_CONFIG = '[core]\n\tbare = false\n';
const PLANTED = '[core]\n\tfsmonitor = "touch pwned"\n';
const GRANTED = ['write_file', 'read_file'];

let workspace: string;
let host: NodeHost;
let registry: ToolRegistry;

beforeAll(() => setTracingDisabled(true));

beforeEach(() => {
  workspace = realpathSync(mkdtempSync(join(tmpdir(), 'toolgate-attack-card-')));
  mkdirSync(join(workspace, '.git'));
  mkdirSync(join(workspace, 'docs'));
  writeFileSync(join(workspace, '.git', 'config'), GIT_CONFIG);
  writeFileSync(join(workspace, '.env'), 'API_TOKEN=hunter2-from-the-env-file\n');
  // What a cloned repository may hold: a link that reads as a note, and a note that is the .env file.
  symlinkSync('../.git/config', join(workspace, 'docs', 'notes.md'));
  linkSync(join(workspace, '.env'), join(workspace, 'docs', 'todo.txt'));
  host = createNodeHost({ workspace, scope: 'workspace-write', sandbox: 'off' });
  registry = createToolRegistry({ tools: [writeFileTool, readFileTool], host, policy: createPolicy({ scope: 'workspace-write', mode: 'ask' }) });
});

afterEach(async () => {
  await host.close();
  rmSync(workspace, { recursive: true, force: true });
});

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
};

function toolTurn(toolCallId: string, toolName: string, input: unknown) {
  return { content: [{ type: 'tool-call' as const, toolCallId, toolName, input: JSON.stringify(input) }], finishReason: { unified: 'tool-calls' as const, raw: 'tool_calls' }, usage, warnings: [] };
}

const textTurn = { content: [{ type: 'text' as const, text: 'done' }], finishReason: { unified: 'stop' as const, raw: 'stop' }, usage, warnings: [] };

/** An AI SDK loop whose person approves every card the framework raises; returns what the model was told. */
async function aiSdkApprovingEverything(toolName: string, input: unknown, context: DispatchContext): Promise<string> {
  const model = new MockLanguageModelV3({ doGenerate: [toolTurn('c1', toolName, input), textTurn, textTurn] });
  const tools = toAISDKTools(registry, context);
  const messages: ModelMessage[] = [{ role: 'user', content: 'Tidy the notes.' }];
  let result = await generateText({ model, tools, messages });
  const told: unknown[] = [...result.response.messages];
  for (let round = 0; round < 2; round += 1) {
    const requests = result.content.filter((part) => part.type === 'tool-approval-request');
    if (requests.length === 0) break;
    messages.push(...result.response.messages, { role: 'tool', content: requests.map((part) => ({ type: 'tool-approval-response' as const, approvalId: part.approvalId, approved: true })) });
    result = await generateText({ model, tools, messages });
    told.push(...result.response.messages);
  }
  // Every tool message the model was handed, the results of calls run at the start of a request included.
  return JSON.stringify(told.filter((message) => (message as { role: string }).role === 'tool'));
}

class ScriptedModel implements Model {
  #turn = 0;
  constructor(private readonly call: { callId: string; name: string; input: unknown }) {}
  getResponse(): Promise<ModelResponse> {
    this.#turn += 1;
    const output =
      this.#turn === 1
        ? [{ type: 'function_call' as const, id: 'fc-1', callId: this.call.callId, name: this.call.name, arguments: JSON.stringify(this.call.input), status: 'completed' as const }]
        : [{ type: 'message' as const, id: `msg-${this.#turn}`, role: 'assistant' as const, status: 'completed' as const, content: [{ type: 'output_text' as const, text: 'done' }] }];
    return Promise.resolve({ usage: new Usage(), output });
  }
  // eslint-disable-next-line require-yield -- streaming is not used by these runs
  async *getStreamedResponse(): AsyncIterable<never> {
    throw new Error('not streamed');
  }
}

/** An OpenAI Agents run whose person approves every interruption. */
async function agentsApprovingEverything(name: string, input: unknown, context: DispatchContext): Promise<void> {
  const agent = new Agent({ name: 'writer', instructions: 'Tidy.', model: new ScriptedModel({ callId: 'call-1', name, input }), tools: toOpenAIAgentsTools(registry, context) });
  let result = await run(agent, 'Tidy the notes.');
  for (let round = 0; round < 2 && result.interruptions.length > 0; round += 1) {
    for (const item of result.interruptions) result.state.approve(item);
    result = await run(agent, result.state);
  }
}

describe('attack: a framework card shows docs/notes.md, the write lands in .git/config', () => {
  it('AI SDK: the person approves every card, and .git/config is not written', async () => {
    const told = await aiSdkApprovingEverything('write_file', { path: 'docs/notes.md', content: PLANTED }, { agent: 'writer', grantedTools: GRANTED });
    expect(readFileSync(join(workspace, '.git', 'config'), 'utf8')).toBe(GIT_CONFIG);
    expect(told).toContain('denied, fail closed');
  });

  it('OpenAI Agents: the person approves every interruption, and .git/config is not written', async () => {
    await agentsApprovingEverything('write_file', { path: 'docs/notes.md', content: PLANTED }, { agent: 'writer', grantedTools: GRANTED });
    expect(readFileSync(join(workspace, '.git', 'config'), 'utf8')).toBe(GIT_CONFIG);
  });

  it('a read of docs/todo.txt, a hard link to .env, approved on the framework card, returns nothing of .env', async () => {
    const told = await aiSdkApprovingEverything('read_file', { path: 'docs/todo.txt' }, { agent: 'reader', grantedTools: GRANTED });
    expect(told).not.toContain('hunter2');
    expect(told).toContain('denied, fail closed');
  });

  it("the application's confirm is asked instead, with toolgate's card: the real target, protected", async () => {
    const asked: ToolApprovalRequest[] = [];
    const confirm = (request: ToolApprovalRequest): Promise<{ outcome: 'reject' }> => {
      asked.push(request);
      return Promise.resolve({ outcome: 'reject' });
    };
    await aiSdkApprovingEverything('write_file', { path: 'docs/notes.md', content: PLANTED }, { agent: 'writer', grantedTools: GRANTED, approval: { confirm } });
    expect(asked.map((request) => request.target?.files)).toEqual([[expect.objectContaining({ path: '.git/config', flags: expect.arrayContaining(['protected', 'link']) })]]);
    expect(readFileSync(join(workspace, '.git', 'config'), 'utf8')).toBe(GIT_CONFIG);
  });

  it('AI SDK, a tool set per request: a card raised for a plain file, approved after the file became a link to .git/config, writes nothing', async () => {
    rmSync(join(workspace, 'docs', 'notes.md'));
    writeFileSync(join(workspace, 'docs', 'notes.md'), 'a note\n');
    const context = { agent: 'writer', grantedTools: GRANTED };
    const model = new MockLanguageModelV3({ doGenerate: [toolTurn('c1', 'write_file', { path: 'docs/notes.md', content: PLANTED }), textTurn] });
    const messages: ModelMessage[] = [{ role: 'user', content: 'Tidy the notes.' }];
    const first = await generateText({ model, tools: toAISDKTools(registry, context), messages });
    const request = first.content.find((part) => part.type === 'tool-approval-request');
    expect(request).toBeDefined();
    // While the card waits, the note becomes a link to .git/config.
    rmSync(join(workspace, 'docs', 'notes.md'));
    symlinkSync('../.git/config', join(workspace, 'docs', 'notes.md'));
    messages.push(...first.response.messages, { role: 'tool', content: [{ type: 'tool-approval-response', approvalId: request?.approvalId ?? '', approved: true }] });
    const second = await generateText({ model, tools: toAISDKTools(registry, context), messages });
    // The AI SDK asks needsApproval again and is told the call is not its to approve: it runs nothing.
    expect(JSON.stringify(second.response.messages)).toContain('denied');
    expect(readFileSync(join(workspace, '.git', 'config'), 'utf8')).toBe(GIT_CONFIG);
  });

  it('held: an ordinary write is still approved on the framework card, by both frameworks', async () => {
    const told = await aiSdkApprovingEverything('write_file', { path: 'docs/plain.md', content: 'one\n' }, { agent: 'writer', grantedTools: GRANTED });
    expect(told).not.toContain('denied');
    expect(readFileSync(join(workspace, 'docs', 'plain.md'), 'utf8')).toBe('one\n');
    await agentsApprovingEverything('write_file', { path: 'docs/other.md', content: 'two\n' }, { agent: 'writer', grantedTools: GRANTED });
    expect(readFileSync(join(workspace, 'docs', 'other.md'), 'utf8')).toBe('two\n');
  });
});
