import type { CallbackManagerForToolRun } from '@langchain/core/callbacks/manager';
import type { ToolMessage } from '@langchain/core/messages';
import type { StructuredTool, ToolRunnableConfig } from '@langchain/core/tools';
import type { DispatchContext, JsonSchema, ToolOutcome, ToolRegistry } from '../../core/internal.js';
import { placeToolResult } from '../../core/internal.js';
import { dispatchGoverned } from '../shared/dispatch-governed.js';
import { dispatchCallId } from '../shared/framework-call-id.js';
import { frameworkTools, type FrameworkTool } from '../shared/framework-tools.js';
import { ToolOutcomeError } from '../shared/outcome-error.js';
import { langchainMessages, langchainTools } from './langchain-peer.js';

/** A LangChain tool call as a chat model emits it. */
interface LangChainToolCall {
  readonly type?: 'tool_call';
  readonly id?: string;
  readonly name: string;
  readonly args: unknown;
}

/**
 * One toolgate tool as a LangChain StructuredTool. Invoked with a tool call
 * (`tool.invoke(aiMessage.tool_calls[0])`) it returns a ToolMessage: the
 * model-facing content, `status: 'error'` for a denial or any other toolgate
 * failure, and the receipt as the artifact. Approval runs through toolgate's
 * own `confirm` hook (LangChain core has no approval flow of its own);
 * without one a governed call is denied.
 */
class ToolgateStructuredTool extends langchainTools.StructuredTool<JsonSchema> {
  name: string;
  description: string;
  schema: JsonSchema;
  readonly #registry: ToolRegistry;
  readonly #context: DispatchContext;
  readonly #key: string;

  constructor(registry: ToolRegistry, context: DispatchContext, entry: FrameworkTool) {
    super();
    this.name = entry.wireName;
    this.description = entry.description;
    // A private copy: LangChain's JSON Schema validator annotates the schema object it is given, and the registry's is frozen.
    this.schema = { ...structuredClone(entry.inputSchema), type: 'object' };
    this.#registry = registry;
    this.#context = context;
    this.#key = entry.key;
  }

  /**
   * LangChain checks arguments against the JSON Schema before `_call` and
   * throws on a mismatch. Validation is toolgate's (stage 6), so such a call
   * still goes through the pipeline: the model gets a receipted
   * `ARGS_INVALID` ToolMessage it can correct, not an exception.
   */
  // `any` mirrors the base class's generic signature, which a subclass cannot restate.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  override async invoke(input: any, config?: any): Promise<any> {
    try {
      return (await super.invoke(input, config)) as unknown;
    } catch (error) {
      if (!(error instanceof langchainTools.ToolInputParsingException)) throw error;
      const call = isToolCall(input) ? input : undefined;
      const runConfig = config as ToolRunnableConfig | undefined;
      return this.#run(call === undefined ? (input as unknown) : call.args, call?.id ?? runConfig?.toolCall?.id, runConfig?.signal);
    }
  }

  protected override _call(input: unknown, _runManager?: CallbackManagerForToolRun, config?: ToolRunnableConfig): Promise<ToolMessage | string> {
    return this.#run(input, config?.toolCall?.id, config?.signal);
  }

  async #run(input: unknown, toolCallId: string | undefined, signal: AbortSignal | undefined): Promise<ToolMessage | string> {
    const outcome = await dispatchGoverned({
      registry: this.#registry,
      context: this.#context,
      call: { callId: dispatchCallId(toolCallId, 'langchain'), name: this.#key, arguments: input },
      signal,
    });
    if (toolCallId === undefined) return plainResult(outcome);
    const placed = placeToolResult(toolCallId, outcome.content, !outcome.ok);
    return new langchainMessages.ToolMessage({
      content: placed.content,
      tool_call_id: toolCallId,
      name: this.name,
      status: placed.isError ? 'error' : 'success',
      artifact: { receipt: outcome.receipt },
    });
  }
}

/** The registry scope's tools as LangChain StructuredTools, every call dispatched through toolgate. */
export function toLangChainTools(registry: ToolRegistry, context: DispatchContext = {}): StructuredTool[] {
  return frameworkTools(registry).map((entry) => new ToolgateStructuredTool(registry, context, entry));
}

/** Invoked with bare arguments (no tool call): the content, or the failure thrown. */
function plainResult(outcome: ToolOutcome): string {
  if (!outcome.ok) throw new ToolOutcomeError(outcome);
  return placeToolResult(outcome.callId, outcome.content).content;
}

/**
 * A tool call, whatever its `args` hold: a chat model's reply holds what JSON.parse made of the arguments the model
 * wrote, a string or a number too. Those `args` are the arguments (toolgate reads a string as arguments text), never the
 * tool call itself, whose `name` and `id` would reach a tool with parameters of those names.
 */
function isToolCall(input: unknown): input is LangChainToolCall {
  return typeof input === 'object' && input !== null && (input as { type?: unknown }).type === 'tool_call';
}
