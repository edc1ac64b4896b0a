import { ToolDeniedByUserError } from '../errors/tool-errors.js';
import type { ToolgateError } from '../errors/toolgate-error.js';
import type { ToolOutcome, ToolSuccess } from '../dispatch/dispatch-types.js';
import { MAX_JSON_DEPTH, measureParsedJson } from '../dispatch/snapshot-json.js';
import { isShowableToolName } from '../errors/describe-issues.js';
import type { ToolReceipt } from '../receipts/receipt-types.js';
import { CODE_MODE_TOOL_NAME } from '../registry/registry-state.js';
import type { ToolDefinition, ToolDispatchContext } from '../tools/tool-types.js';
import { unwrapUntrusted } from '../untrusted/untrusted.js';
import { CodeModeCancelledError, CodeModeError } from './code-mode-error.js';
import { createCallGate } from '../dispatch/create-call-gate.js';
import { measureJsonBytes } from './measure-json-bytes.js';
import type { CodeConsoleOutput, CodeRuntime, CodeToolErrorView, CodeToolReply } from './code-mode-types.js';

/** What a successful `run_code` call returns. */
export interface RunCodeResult {
  /** The script's return value (JSON; `null` when it returned nothing). */
  readonly value: unknown;
  readonly console: CodeConsoleOutput;
  /** One receipt per nested tool call, in the order the script started them. Built on first read. */
  readonly calls: readonly ToolReceipt[];
  /** What the model reads (and what bounding measures): the value, the console and one status line per call. */
  toJSON(): RunCodeSummary;
}

export interface RunCodeSummary {
  readonly value: unknown;
  readonly console?: readonly string[];
  readonly consoleTruncated?: true;
  /** `tool: CODE` per nested call, e.g. `read_file: OK`, `write_file: DENIED_BY_USER`. */
  readonly calls: readonly string[];
}

export interface RunCodeArguments {
  readonly code: string;
  readonly timeoutMs?: number;
}

/** A script may start at most this many tool calls; later calls are refused inside the script. */
export const MAX_NESTED_CALLS = 256;
/** Nested calls one script may have running at once, unless its runtime says otherwise (`maxConcurrentCalls`). */
export const DEFAULT_MAX_CONCURRENT_CALLS = 8;
/** UTF-8 bytes of nested results one script may receive in all, unless its runtime says otherwise (`maxDeliveredBytes`). */
export const DEFAULT_MAX_DELIVERED_BYTES = 16 * 1024 * 1024;
/**
 * UTF-8 bytes of arguments (their JSON text) one script may send to its tools, in all. The host holds a
 * call's arguments while it waits its turn and, on its outcome, until the run ends; past this, a call is
 * refused inside the script before it reaches the pipeline.
 */
export const MAX_SCRIPT_ARGUMENT_BYTES = 16 * 1024 * 1024;
const MAX_CODE_LENGTH = 60_000;

const JAVASCRIPT_DESCRIPTION =
  'Run a JavaScript script in a sandbox. The script is the body of an async function: call tools as `await tools.<name>(args)` (declared in the tools SDK), log with console.log, and `return` a JSON value. A refused or failed tool call throws a ToolCallError you can catch (`.code`, `.reason`, `.tool`). There is no filesystem, network, timer or module access: only the tools.';

const DESCRIPTIONS: Readonly<Record<string, string>> = {
  javascript: JAVASCRIPT_DESCRIPTION,
  typescript: JAVASCRIPT_DESCRIPTION,
  python:
    'Run a Python script in a sandbox. Call tools as `await tools.<name>(args)` (declared in the tools SDK), print notes, and set `result` to a JSON value. A refused or failed tool call raises ToolCallError. There is no host access: only the tools.',
};

const definitions = new WeakMap<CodeRuntime, ToolDefinition<RunCodeArguments, RunCodeResult>>();

/**
 * The reserved Code Mode transport for one runtime. The registry adds it
 * itself; nothing else may define a tool of this name. Its body has no host
 * access: every tool the script calls is a full nested dispatch through the
 * same pipeline (grant, policy, hooks, approval, journal, receipt) with this
 * call as parent, and an abort of this call reaches every one of them.
 * One script's calls run at most `maxConcurrentCalls` at a time, and the
 * results it receives are bounded in all by `maxDeliveredBytes`, so the
 * host's memory does not grow with what a script asks for.
 */
export function createRunCodeTool(runtime: CodeRuntime): ToolDefinition<RunCodeArguments, RunCodeResult> {
  const cached = definitions.get(runtime);
  if (cached !== undefined) return cached;
  const definition: ToolDefinition<RunCodeArguments, RunCodeResult> = Object.freeze({
    name: CODE_MODE_TOOL_NAME,
    source: 'builtin' as const,
    description: DESCRIPTIONS[runtime.language] ?? `Run a ${runtime.language} script in a sandbox; it calls tools through the tools SDK and returns a JSON value.`,
    input: Object.freeze({
      type: 'object',
      properties: Object.freeze({
        code: Object.freeze({ type: 'string', minLength: 1, maxLength: MAX_CODE_LENGTH, description: 'The script.' }),
        timeoutMs: Object.freeze({ type: 'integer', minimum: 1, maximum: runtime.maxTimeoutMs, description: 'Wall-time limit for the whole script, in milliseconds.' }),
      }),
      required: Object.freeze(['code']),
      additionalProperties: false,
    }),
    // The script itself touches nothing: its effects are the nested calls, each governed on its own.
    effect: 'read' as const,
    risk: 'low' as const,
    journal: 'none' as const,
    dispatch: (args: RunCodeArguments, _host: unknown, context: ToolDispatchContext) => runScript(runtime, args, context),
  });
  definitions.set(runtime, definition);
  return definition;
}

async function runScript(runtime: CodeRuntime, args: RunCodeArguments, context: ToolDispatchContext): Promise<RunCodeResult> {
  // Slots are taken when a call starts, so receipts keep the script's start order.
  const outcomes: (ToolOutcome | undefined)[] = [];
  const gate = createCallGate(runtime.maxConcurrentCalls ?? DEFAULT_MAX_CONCURRENT_CALLS);
  const budget = runtime.maxDeliveredBytes ?? DEFAULT_MAX_DELIVERED_BYTES;
  let delivered = 0;
  let sent = 0;
  // Once a person rejected a call of this script, none of its other calls is put to a person, and their open prompts are withdrawn.
  const personSaidNo = new AbortController();
  // A result past the budget stops the whole run: the model reads why, the script never gets the value.
  let overBudget: { readonly detail: string; readonly reply: CodeToolReply } | undefined;
  const stop = new AbortController();
  const signal = context.signal === undefined ? stop.signal : AbortSignal.any([context.signal, stop.signal]);
  const callTool = async (name: string, toolArgs: unknown, callSignal: AbortSignal): Promise<CodeToolReply> => {
    if (overBudget !== undefined) return overBudget.reply;
    if (outcomes.length >= MAX_NESTED_CALLS) {
      return { ok: false, error: { code: 'CALL_LIMIT', message: `This script may make at most ${MAX_NESTED_CALLS} tool calls.`, tool: undefined } };
    }
    const size = measureJsonBytes(toolArgs, MAX_SCRIPT_ARGUMENT_BYTES - sent);
    if (size.kind !== 'fits') return argumentRefusal(size.kind);
    sent += size.bytes;
    const slot = outcomes.push(undefined) - 1;
    if (!gate.tryEnter() && !(await gate.enter(callSignal))) return { ok: false, error: { code: 'ABORTED', message: 'The script stopped before this call started.', tool: undefined } };
    let outcome: ToolOutcome;
    try {
      outcome = await context.dispatchNested({ name, arguments: toolArgs, signal: callSignal, stopAsking: personSaidNo.signal });
    } finally {
      gate.leave();
    }
    outcomes[slot] = outcome;
    if (!outcome.ok && outcome.error instanceof ToolDeniedByUserError && outcome.error.reason === 'user_rejected') personSaidNo.abort();
    if (!outcome.ok) return { ok: false, error: errorView(outcome.error) };
    const value = scriptValue(outcome);
    // Measured before the runtime copies anything into the sandbox: a value past what is left is never serialised.
    const received = measureJsonBytes(value, budget - delivered);
    if (received.kind === 'fits') {
      delivered += received.bytes;
      return { ok: true, value };
    }
    if (received.kind === 'invalid') return { ok: false, error: { code: 'OUTPUT_INVALID', message: `The tool result is not bounded JSON (nested deeper than ${MAX_JSON_DEPTH} levels, or cyclic).`, tool: outcome.toolName } };
    overBudget ??= budgetRefusal(outcome, budget, delivered);
    stop.abort(new Error('Code Mode script stopped: result_budget'));
    return overBudget.reply;
  };
  const result = await runtime.run({ code: args.code, timeoutMs: args.timeoutMs, signal, callTool });
  // The runtime returns only after every nested call settled, so every slot is filled.
  const settled = outcomes.filter((outcome): outcome is ToolOutcome => outcome !== undefined);
  const record = (): { console: CodeConsoleOutput; calls: readonly ToolReceipt[] } => ({ console: result.console, calls: settled.map((outcome) => outcome.receipt) });
  // A cancellation of the call wins over every other ending, a finished script and the budget stop included;
  // it keeps the receipts, where the pipeline would report a bare cancellation.
  if (context.signal?.aborted === true) throw new CodeModeCancelledError(record());
  if (result.ok) {
    // Whatever the runtime: a value nested deeper than the engine's JSON bound would break every later stringify or clone.
    const measured = measureParsedJson(result.value);
    if (!measured.ok) throw new CodeModeError('result_invalid', measured.problem, record());
    return runCodeResult(result.value, result.console, settled);
  }
  const failure = overBudget === undefined ? result : { failure: 'result_budget' as const, message: overBudget.detail };
  if (failure.failure === 'aborted') throw new CodeModeCancelledError(record());
  throw new CodeModeError(failure.failure, failure.message, record());
}

/** What the model reads when a result would pass the budget, and what a script still running would catch. */
function budgetRefusal(outcome: ToolSuccess, budget: number, delivered: number): { detail: string; reply: CodeToolReply } {
  // The receipt is built only here, off the common path; a spilled output is named so an operator can find it.
  const spill = outcome.receipt.spill;
  const detail =
    `the result of ${outcome.toolName} is larger than the ${mebibytes(budget - delivered)} left of the script's ${mebibytes(budget)} budget for tool results` +
    `${spill === undefined ? '' : ` (the full output, ${mebibytes(spill.bytes)}, is stored as ${spill.handle})`}; ask for less per call (for read_file a line window with offset and limit) and keep only what you need`;
  return { detail, reply: { ok: false, error: { code: 'RESULT_BUDGET', message: `The tool result exceeds the script's budget: ${detail}.`, tool: outcome.toolName } } };
}

/** A call refused at the bridge, before the pipeline: no receipt, as nothing was dispatched. */
function argumentRefusal(kind: 'over' | 'invalid'): CodeToolReply {
  const message =
    kind === 'over'
      ? `The arguments of this call pass what is left of the ${mebibytes(MAX_SCRIPT_ARGUMENT_BYTES)} a script may send to its tools in all; send less per script.`
      : `The arguments are not bounded JSON (nested deeper than ${MAX_JSON_DEPTH} levels).`;
  return { ok: false, error: { code: kind === 'over' ? 'ARGUMENT_BUDGET' : 'ARGS_INVALID', message, tool: undefined } };
}

function mebibytes(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}

/**
 * The result object. Receipts are built lazily (a receipt redacts and
 * projects its arguments), and the model-facing rendering is the compact
 * summary: the full receipts stay with the caller.
 */
function runCodeResult(value: unknown, console: CodeConsoleOutput, outcomes: readonly ToolOutcome[]): RunCodeResult {
  let calls: readonly ToolReceipt[] | undefined;
  return Object.freeze({
    value,
    console,
    get calls(): readonly ToolReceipt[] {
      return (calls ??= Object.freeze(outcomes.map((outcome) => outcome.receipt)));
    },
    toJSON: (): RunCodeSummary => ({
      value,
      ...(console.lines.length > 0 ? { console: console.lines } : {}),
      ...(console.truncated ? { consoleTruncated: true as const } : {}),
      calls: outcomes.map(summaryLine),
    }),
  });
}

/**
 * `tool: CODE`. A call that succeeded is named by the tool it resolved to; a
 * failed one may carry the name as the script spelt it, shown only as an
 * unknown-tool refusal would show it: never free text or a credential.
 */
function summaryLine(outcome: ToolOutcome): string {
  if (outcome.ok) return `${outcome.toolName}: OK`;
  return `${isShowableToolName(outcome.toolName) ? outcome.toolName : '(not a valid tool name)'}: ${outcome.error.code}`;
}

/**
 * What a script reads from a successful nested call: the value, unless a
 * `postExecute` hook or `finalizeContent` wrote what the model sees. Then the
 * script gets that final content, the model's own text, so a redaction holds
 * through `run_code`. Bounding alone does not count: the script still gets
 * the full value.
 */
function scriptValue(outcome: ToolSuccess): unknown {
  return outcome.contentReplaced === true ? unwrapUntrusted(outcome.content) : outcome.value;
}

/** Only the typed, secret-free parts of an error cross into the script. */
function errorView(error: ToolgateError): CodeToolErrorView {
  const reason = (error as { reason?: unknown }).reason;
  return {
    code: error.code,
    message: error.message,
    tool: error.tool,
    ...(typeof reason === 'string' ? { reason } : {}),
  };
}
