import { Agent, run, RunState, setTracingDisabled, Usage, type Model, type ModelRequest, type ModelResponse } from '@openai/agents';
import { beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createToolRegistry, defineTool } from '../../core/internal.js';
import { createNotesFixture, NOTES_GRANT } from '../__fixtures__/notes-registry.js';
import { planInterruption, rejectInterruption, toOpenAIAgentsTools } from './to-openai-agents-tools.js';

type Turn = { call: { callId: string; name: string; input: unknown } } | { text: string };

/** The SDK's Model seam, scripted: one turn per model call; every request is kept. */
class ScriptedModel implements Model {
  readonly requests: ModelRequest[] = [];
  #turn = 0;
  constructor(private readonly turns: readonly Turn[]) {}
  getResponse(request: ModelRequest): Promise<ModelResponse> {
    this.requests.push(request);
    const turn = this.turns[this.#turn];
    this.#turn += 1;
    if (turn === undefined) throw new Error('the script ran out of turns');
    const output =
      'call' in turn
        ? [{ type: 'function_call' as const, id: `fc-${turn.call.callId}`, callId: turn.call.callId, name: turn.call.name, arguments: JSON.stringify(turn.call.input), status: 'completed' as const }]
        : [{ type: 'message' as const, id: `msg-${this.#turn}`, role: 'assistant' as const, status: 'completed' as const, content: [{ type: 'output_text' as const, text: turn.text }] }];
    return Promise.resolve({ usage: new Usage(), output });
  }
  // eslint-disable-next-line require-yield -- streaming is not used by these runs
  async *getStreamedResponse(): AsyncIterable<never> {
    throw new Error('not streamed');
  }
}

/** The function-call outputs the model was shown on its nth call. */
function outputsSeen(model: ScriptedModel, call: number): { callId: string; output: unknown }[] {
  const input = model.requests[call]?.input;
  if (!Array.isArray(input)) return [];
  return input.filter((item) => item.type === 'function_call_result').map((item) => ({ callId: (item as { callId: string }).callId, output: (item as { output: unknown }).output }));
}

function text(output: unknown): string {
  if (typeof output === 'string') return output;
  return (output as { text?: string }).text ?? JSON.stringify(output);
}

beforeAll(() => setTracingDisabled(true));

describe('toOpenAIAgentsTools', () => {
  it('runs the two-step interruption flow: approved once, the next call denied, both receipted', async () => {
    const { registry, host, journal, receipts } = createNotesFixture();
    const context = { agent: 'writer', grantedTools: NOTES_GRANT };
    const model = new ScriptedModel([
      { call: { callId: 'call-1', name: 'write_note', input: { path: 'notes/a.txt', text: 'hello' } } },
      { call: { callId: 'call-2', name: 'write_note', input: { path: 'notes/b.txt', text: 'again' } } },
      { text: 'One note written; the second was declined.' },
    ]);
    const agent = new Agent({ name: 'writer', instructions: 'Write notes.', model, tools: toOpenAIAgentsTools(registry, context) });

    // Step 1: the model calls the governed tool; toolgate's plan says ask, so the run interrupts.
    const first = await run(agent, 'Write two notes.');
    expect(first.interruptions).toHaveLength(1);
    const firstItem = first.interruptions[0]!;
    const plan = await planInterruption(registry, firstItem, context);
    expect(plan).toMatchObject({ status: 'approval_required', toolName: 'write_note', action: 'fs_write' });
    expect(host.files.has('notes/a.txt')).toBe(false);
    first.state.approve(firstItem);

    // Step 2: the resumed run dispatches the approved digest; the model calls again and is interrupted again.
    const second = await run(agent, first.state);
    expect(host.files.get('notes/a.txt')).toBe('hello');
    expect(outputsSeen(model, 1).map((entry) => [entry.callId, text(entry.output)])).toEqual([['call-1', 'wrote 5 bytes to notes/a.txt']]);
    expect(second.interruptions).toHaveLength(1);
    const denied = await rejectInterruption(registry, second.state, second.interruptions[0]!, { context, reason: 'not this one' });
    expect(denied?.ok).toBe(false);

    // Step 3: the rejection reaches the model as toolgate's denial text.
    const third = await run(agent, second.state);
    expect(third.finalOutput).toBe('One note written; the second was declined.');
    const seen = outputsSeen(model, 2).find((entry) => entry.callId === 'call-2');
    expect(text(seen?.output)).toBe('Tool "write_note" was rejected by the approver: not this one.');
    expect(host.files.has('notes/b.txt')).toBe(false);

    expect(receipts.map((receipt) => [receipt.callId, receipt.status, receipt.code, receipt.approval.outcome, receipt.actionDigest === undefined])).toEqual([
      ['call-1', 'ok', 'OK', 'approve', false],
      ['call-2', 'denied', 'DENIED_BY_USER', 'reject', false],
    ]);
    expect(receipts[0]?.actionDigest).toBe(plan.actionDigest);
    expect(receipts[0]?.approval.how).toBe('pre-approved');
    expect(journal.settled.map((entry) => entry.receipt.callId)).toEqual(['call-1']);
  });

  it('resumes a serialized run in a fresh tool set and dispatches the approved call', async () => {
    const { registry, host, receipts } = createNotesFixture();
    const context = { grantedTools: NOTES_GRANT };
    const script: Turn[] = [{ call: { callId: 'call-s', name: 'write_note', input: { path: 'notes/s.txt', text: 'saved' } } }, { text: 'done' }];
    const before = new Agent({ name: 'writer', model: new ScriptedModel(script), tools: toOpenAIAgentsTools(registry, context) });
    const interrupted = await run(before, 'Save a note.');
    const item = interrupted.interruptions[0]!;
    const digest = (await planInterruption(registry, item, context)).actionDigest;
    interrupted.state.approve(item);
    const saved = interrupted.state.toString();

    const after = new Agent({ name: 'writer', model: new ScriptedModel(script.slice(1)), tools: toOpenAIAgentsTools(registry, context) });
    const resumed = await run(after, await RunState.fromString(after, saved));
    expect(resumed.finalOutput).toBe('done');
    expect(host.files.get('notes/s.txt')).toBe('saved');
    expect(receipts.map((receipt) => [receipt.status, receipt.actionDigest])).toEqual([['ok', digest]]);
  });

  it('shows the model toolgate’s denial when policy refuses a call, and runs nothing', async () => {
    const { registry, host, receipts } = createNotesFixture();
    const model = new ScriptedModel([{ call: { callId: 'call-w', name: 'wipe_notes', input: {} } }, { text: 'Could not wipe.' }]);
    const agent = new Agent({ name: 'writer', model, tools: toOpenAIAgentsTools(registry, { grantedTools: NOTES_GRANT }) });
    const result = await run(agent, 'Wipe everything.');
    expect(result.interruptions).toHaveLength(0);
    expect(result.finalOutput).toBe('Could not wipe.');
    expect(text(outputsSeen(model, 1)[0]?.output)).toMatch(/^Tool "wipe_notes" is not granted to this caller/);
    expect(host.calls).toHaveLength(0);
    expect(receipts.map((receipt) => [receipt.status, receipt.code])).toEqual([['denied', 'POLICY_DENIED']]);
  });

  it('turns invalid model arguments into a receipted ARGS_INVALID result the model can correct', async () => {
    const { registry, receipts } = createNotesFixture();
    const model = new ScriptedModel([{ call: { callId: 'call-r', name: 'read_note', input: { path: 42 } } }, { text: 'Let me fix that.' }]);
    const agent = new Agent({ name: 'reader', model, tools: toOpenAIAgentsTools(registry, { grantedTools: NOTES_GRANT }) });
    const result = await run(agent, 'Read note 42.');
    expect(result.finalOutput).toBe('Let me fix that.');
    expect(text(outputsSeen(model, 1)[0]?.output)).toMatch(/^Invalid arguments for tool "read_note"/);
    expect(receipts.map((receipt) => receipt.code)).toEqual(['ARGS_INVALID']);
  });

  it('fails closed when a governed call is invoked without the SDK approving it', async () => {
    const { registry, host } = createNotesFixture();
    const [writeNote] = toOpenAIAgentsTools(registry, { grantedTools: NOTES_GRANT }).filter((tool) => tool.name === 'write_note');
    const { RunContext } = await import('@openai/agents');
    const output = await writeNote!.invoke(new RunContext(), JSON.stringify({ path: 'notes/x.txt', text: 'x' }), {
      toolCall: { type: 'function_call', callId: 'direct', name: 'write_note', arguments: '{}' },
    });
    expect(output).toBe('Tool "write_note" needs an approval, but no approval hook is wired (denied, fail closed).');
    expect(host.files.has('notes/x.txt')).toBe(false);
  });
  it('refuses a later call that reuses an approved call id: the SDK approval covered one execution of other arguments', async () => {
    const { registry, host, receipts } = createNotesFixture();
    const context = { grantedTools: NOTES_GRANT };
    const model = new ScriptedModel([
      { call: { callId: 'call-1', name: 'write_note', input: { path: 'notes/a.txt', text: 'hello' } } },
      // The hostile model calls again under the approved id: the SDK finds the id approved and never asks.
      { call: { callId: 'call-1', name: 'write_note', input: { path: 'notes/evil.txt', text: 'pwned' } } },
      { text: 'done' },
    ]);
    const agent = new Agent({ name: 'writer', model, tools: toOpenAIAgentsTools(registry, context) });
    const interrupted = await run(agent, 'Write a note.');
    interrupted.state.approve(interrupted.interruptions[0]!);

    const resumed = await run(agent, interrupted.state);
    expect(resumed.interruptions).toHaveLength(0);
    expect(host.files.get('notes/a.txt')).toBe('hello');
    expect(host.files.has('notes/evil.txt')).toBe(false);
    expect(text(outputsSeen(model, 2).at(-1)?.output)).toBe('Tool "write_note" needs an approval, but no approval hook is wired (denied, fail closed).');
    expect(receipts.map((receipt) => [receipt.status, receipt.code])).toEqual([
      ['ok', 'OK'],
      ['denied', 'DENIED_BY_USER'],
    ]);
  });

  it("does not take the SDK's standing approval of a tool as a person's approval of calls nobody was shown", async () => {
    const { registry, host, receipts } = createNotesFixture();
    const model = new ScriptedModel([
      { call: { callId: 'call-1', name: 'write_note', input: { path: 'notes/a.txt', text: 'hello' } } },
      { call: { callId: 'call-2', name: 'write_note', input: { path: 'notes/evil.txt', text: 'pwned' } } },
      { text: 'done' },
    ]);
    const agent = new Agent({ name: 'writer', model, tools: toOpenAIAgentsTools(registry, { grantedTools: NOTES_GRANT }) });
    const interrupted = await run(agent, 'Write a note.');
    interrupted.state.approve(interrupted.interruptions[0]!, { alwaysApprove: true });

    // The call the person was shown runs; the SDK then runs every later write_note without asking.
    const resumed = await run(agent, interrupted.state);
    expect(resumed.interruptions).toHaveLength(0);
    expect(host.files.get('notes/a.txt')).toBe('hello');
    expect(host.files.has('notes/evil.txt')).toBe(false);
    expect(receipts.map((receipt) => [receipt.callId, receipt.code])).toEqual([
      ['call-1', 'OK'],
      ['call-2', 'DENIED_BY_USER'],
    ]);
  });

  it('dispatches exactly the approved digest: an action changed after approval is refused on resume', async () => {
    let sent = 0;
    const sendReport = defineTool({
      name: 'send_report',
      description: 'Send the weekly report to the configured recipient.',
      input: z.object({ week: z.number().int(), recipient: z.string() }),
      configOnly: ['recipient'],
      policy: { os: true },
      dispatch: (args: { week: number; recipient: string }) => `sent week ${args.week} to ${args.recipient} (#${(sent += 1)})`,
    });
    const registry = createToolRegistry({ tools: [sendReport] });
    const values: Record<string, unknown> = { recipient: 'alice@example.com' };
    const model = new ScriptedModel([{ call: { callId: 'call-r', name: 'send_report', input: { week: 7 } } }, { text: 'It was refused.' }]);
    const agent = new Agent({ name: 'reporter', model, tools: toOpenAIAgentsTools(registry, { grantedTools: ['send_report'], config: { values } }) });
    const interrupted = await run(agent, 'Send the report.');
    interrupted.state.approve(interrupted.interruptions[0]!);

    values.recipient = 'mallory@example.com';
    const resumed = await run(agent, interrupted.state);
    expect(resumed.finalOutput).toBe('It was refused.');
    expect(text(outputsSeen(model, 1)[0]?.output)).toBe('Tool "send_report" was refused: its arguments differ from the approved action.');
    expect(sent).toBe(0);
  });
});
