import type { StandardSchemaV1 } from '@standard-schema/spec';
import type { ResolvedAction } from '../action/resolved-action.js';
import type { ToolHost, ToolHostCallOptions } from '../host/tool-host.js';
import type { Untrusted } from '../untrusted/untrusted.js';

/** A JSON Schema object (opaque data; the engine never imports a JSON Schema type package). */
export type JsonSchema = Readonly<Record<string, unknown>>;

/** What a definition may give as `input` / `output`. */
export type ToolSchema<T = unknown> = StandardSchemaV1<unknown, T> | JsonSchema;

/** Facts a tool declares about itself (MCP tool annotations). They describe; they never decide. */
export interface ToolFacts {
  readonly readOnly?: boolean;
  readonly destructive?: boolean;
  readonly idempotent?: boolean;
  readonly openWorld?: boolean;
}

/** The class the engine governs by. A tool never decides whether it may run. */
export interface ToolPolicyClass {
  /** Needs the filesystem scope tier (reads and writes alike). */
  readonly fsScoped?: boolean;
  /** The filesystem operation writes. Governed by approval. */
  readonly fsWrite?: boolean;
  /** Spawns a process under the command allowlist. */
  readonly spawnsProcess?: boolean;
  /** Outbound egress, discriminated by kind: each kind has its own policy. */
  readonly egress?: 'http' | 'search' | 'mcp';
  /** An OS-integration action (clipboard, notification). Governed. */
  readonly os?: boolean;
  /** Needs a gate approval (`context.gateApproved`); chat confirmation cannot substitute. */
  readonly requiresGate?: boolean;
}

export type ToolSource = 'builtin' | 'mcp' | 'plugin';
export type ToolEffect = 'read' | 'write' | 'execute' | 'external';
export type ToolRisk = 'low' | 'medium' | 'high' | 'critical';
export type JournalTier = 'none' | 'record' | 'effect';

/**
 * Where a tool's guardrail target lives in its effective arguments, so the
 * policy enforces allowlists generically. A `spawnsProcess` tool must return
 * its `command`; an `http` egress tool its `url`; an fs tool its `path`.
 */
export interface PolicyTarget {
  /** The command: a string (split on runs of spaces, nothing else) or an argv. */
  readonly command?: string | readonly string[];
  readonly url?: string;
  readonly path?: string;
  /** Additional paths, for tools that touch several. */
  readonly paths?: readonly string[];
  /** The HTTP method, beside `url`: what an approver sees and a remembered approval binds. Default `GET`. */
  readonly method?: string;
  /** MCP server name, for `egress: 'mcp'`. */
  readonly server?: string;
  /** The tool on that server, and the complete arguments it receives, for `egress: 'mcp'`. */
  readonly mcpTool?: string;
  readonly mcpArguments?: unknown;
  /** A search query, for `egress: 'search'`. */
  readonly query?: string;
  /** An OS action (`read_clipboard`, `notify`) and the text it carries. */
  readonly os?: { readonly action: string; readonly text?: string };
}

/** A UI render intent for a call (e.g. the console's card). */
export interface ToolCallView {
  readonly title: string;
  readonly subtitle?: string;
  readonly body?: string;
  readonly language?: string;
}

export interface ToolResultView {
  readonly summary: string;
  readonly body?: string;
  readonly language?: string;
}

/** A call a tool makes through the pipeline, with itself as parent (Code Mode). */
export interface NestedCall {
  readonly name: string;
  readonly arguments: unknown;
  readonly callId?: string;
  readonly signal?: AbortSignal;
  /**
   * Once it aborts, a call that needs a person's approval is rejected as the
   * person's earlier answer and nobody is asked; a prompt already open is
   * withdrawn and answered so. A call past its approval runs on.
   */
  readonly stopAsking?: AbortSignal;
}

/** What a tool body receives besides its arguments and the host. */
export interface ToolDispatchContext {
  readonly callId: string;
  readonly toolName: string;
  readonly agent: string | undefined;
  /** Cooperative cancellation. Every async tool must observe or forward it. */
  readonly signal: AbortSignal | undefined;
  /** The resolved configuration block for this call. */
  readonly config: Readonly<Record<string, unknown>>;
  /** Engine delegate for nested agents; absent ⇒ `ToolUnavailableError`. */
  readonly invokeAgent: ((agent: string, input: unknown, signal?: AbortSignal) => Promise<unknown>) | undefined;
  /**
   * Dispatch a nested call through the same pipeline, with this call as
   * parent. It always carries this call's signal; `signal` can only add a
   * reason to abort (a sandbox stopping a script cancels its calls in flight).
   * `stopAsking`: once it aborts, a call that needs a person's approval is
   * rejected without asking, and an open prompt is withdrawn (a script one
   * of whose calls a person rejected).
   */
  readonly dispatchNested: (call: NestedCall) => Promise<import('../dispatch/dispatch-types.js').ToolOutcome>;
  readonly hostCallOptions: ToolHostCallOptions | undefined;
  /**
   * The call's resolved action (real paths, exact argv, executable), when it
   * has a target: pass its parts to the host as `expected`, so the host
   * performs exactly what policy and the approver judged.
   */
  readonly action: ResolvedAction | undefined;
  /** Defer a context message until this call's result reaches the agent loop. */
  deferContext(context: string): void;
}

/** Arguments handed to `finalizeContent`. */
export interface FinalizeContentState {
  readonly ok: boolean;
  readonly content: string;
  readonly value: unknown;
  readonly errorCode: string | undefined;
}

// The default stands for a tool of any arguments: `dispatch` takes them contravariantly and `input` yields them, so no other type fits both.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export interface ToolDefinition<TArgs = any, TResult = unknown> {
  /** Exact registry key, `^[a-z][a-z0-9_]{0,63}$`. */
  readonly name: string;
  /** Exact SemVer. When several versions share a name, a call must pin one (`name@1.2.0`). */
  readonly version?: string;
  /** What the model reads to decide to call the tool. Not empty. */
  readonly description: string;
  /** A Standard Schema (zod 4, valibot, arktype) or a plain JSON Schema object. */
  readonly input: ToolSchema<TArgs>;
  /**
   * The model-visible JSON Schema, when `input` is a Standard Schema that
   * cannot convert itself (it lacks `~standard.jsonSchema`).
   */
  readonly inputJsonSchema?: JsonSchema;
  /** The declared result shape; the result is validated against it. */
  readonly output?: ToolSchema<TResult>;
  readonly outputJsonSchema?: JsonSchema;
  /** Parameters whose values come only from `context.config`; never shown to, or accepted from, a model. */
  readonly configOnly?: readonly string[];
  readonly facts?: ToolFacts;
  readonly policy?: ToolPolicyClass;
  /**
   * Default `'plugin'`. `'builtin'` is for the product's own tools, whose
   * schemas its tests compile: they are compiled when a call first needs
   * them, without the meta-schema check, where any other definition's are
   * checked and compiled when it is registered.
   */
  readonly source?: ToolSource;
  /** Default derived from `policy`: write, execute, external or read. */
  readonly effect?: ToolEffect;
  /** Default derived from `effect`. */
  readonly risk?: ToolRisk;
  /** Up to 16 permission names the policy must grant. */
  readonly permissions?: readonly string[];
  /** Enforce the bounded JSON Schema subset on this tool's schemas (for untrusted sources). */
  readonly schemaProfile?: 'bounded';
  readonly presentCall?: (args: TArgs) => ToolCallView;
  readonly presentResult?: (result: TResult) => ToolResultView;
  /** Where the guardrail target lives in the effective arguments. */
  readonly policyTarget?: (args: TArgs) => PolicyTarget;
  /**
   * The command line the tool always runs, for a tool whose model chooses
   * none of it (`['git', 'status']`): the command rules that argv matches
   * cover the tool whatever its name, so `Bash(git status:*)` covers it. The
   * guardrail floor (`allowedCommands`) is not asked: it judges commands a
   * model chose. 1 to 16 non-empty strings.
   */
  readonly fixedArgv?: readonly string[];
  /**
   * What a call reaches on the model's behalf: `'mcp'`, the upstream MCP
   * tool its arguments name as `server`, `tool` and `arguments`. The deny and
   * ask rules on that upstream tool then apply to the call as well, so it
   * cannot dodge them by going through this tool.
   */
  readonly delegatesTo?: 'mcp';
  /**
   * A check the schema cannot express, on the validated effective arguments
   * (stage 6, before any policy): a returned problem refuses the call with a
   * loop-correctable `ARGS_INVALID` whose message is that problem. It must be
   * synchronous, total and secret-free (never quote an argument value).
   */
  readonly checkInput?: (args: TArgs) => string | undefined;
  /** 1 ms to 1 hour. */
  readonly timeoutMs?: number;
  /** `true` (exactly) lets a batch run this call in parallel. */
  readonly isConcurrencySafe?: (args: TArgs) => boolean;
  /** Governed tools default to `'effect'`; others to `'none'`. */
  readonly journal?: JournalTier;
  /**
   * The model-facing text of a successful result, before it is bounded
   * (default: a string as it is, anything else as JSON). For a result that
   * carries a large text, this lets the text go to the model as it is rather
   * than escaped inside JSON. Synchronous and total; if it throws anyway the
   * default rendering is used and the fault is reported.
   */
  readonly renderContent?: (result: TResult) => string;
  /** Synchronous and total; may replace only the final model-facing content. */
  readonly finalizeContent?: (state: FinalizeContentState) => string | undefined;
  /** Perform the call. Side effects only through `host`. */
  readonly dispatch: (args: TArgs, host: ToolHost, context: ToolDispatchContext) => Promise<TResult> | TResult;
}

/** Infer helper: `defineTool` returns its argument, typed. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyToolDefinition = ToolDefinition<any, any>;

export type { Untrusted };
