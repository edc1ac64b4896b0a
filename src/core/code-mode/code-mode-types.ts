/**
 * The seam between the engine and a Code Mode sandbox. The engine owns the
 * `run_code` transport, the governance of every nested call and the SDK
 * text; a runtime (for example `toolgate/code-mode`'s QuickJS sandbox) only
 * runs a script and bridges its tool calls back through `callTool`.
 */
export interface CodeRuntime {
  /** The language scripts are written in; it selects the SDK renderer (`javascript`, `typescript`, `python`). */
  readonly language: string;
  /** The longest wall time a script may ask for with `timeoutMs`. Also the `run_code` schema maximum. */
  readonly maxTimeoutMs: number;
  /** Nested tool calls one script may have running at once; later calls wait their turn. Default 8 (`DEFAULT_MAX_CONCURRENT_CALLS`). */
  readonly maxConcurrentCalls?: number;
  /**
   * UTF-8 bytes of nested results (their JSON text) one script may receive in
   * all; a result that would pass it ends the run with `result_budget`, before
   * it is copied into the sandbox. Default 16 MiB (`DEFAULT_MAX_DELIVERED_BYTES`).
   */
  readonly maxDeliveredBytes?: number;
  /** Run one script to completion. Never rejects for a script-level failure: that is a `CodeRunFailure`. */
  run(request: CodeRunRequest): Promise<CodeRunResult>;
}

export interface CodeRunRequest {
  /** The script: the body of an async function whose return value is the result. */
  readonly code: string;
  /** The model's wall-time request, already validated; the runtime may only shorten its own default with it. */
  readonly timeoutMs: number | undefined;
  /** The `run_code` call's cancellation. An abort stops the script and every call it has in flight. */
  readonly signal: AbortSignal | undefined;
  /**
   * The bridge: one governed nested dispatch. `signal` is the runtime's own
   * (aborted when the script stops), fused with the `run_code` call's. Never
   * rejects: a refusal is a `CodeToolReply` with `ok: false`.
   */
  readonly callTool: (name: string, args: unknown, signal: AbortSignal) => Promise<CodeToolReply>;
}

/** What a script's tool call settles with. A failure becomes a catchable exception inside the script. */
export type CodeToolReply =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly error: CodeToolErrorView };

/** The secret-free view of a failed nested call that a script may read. */
export interface CodeToolErrorView {
  readonly code: string;
  readonly message: string;
  readonly tool: string | undefined;
  /** For `POLICY_DENIED` and `DENIED_BY_USER`. */
  readonly reason?: string;
}

/** Why a script did not produce a result. */
export type CodeRunFailure =
  /** The script threw (or its promise rejected). */
  | 'script_error'
  /** Wall time ran out (including time spent waiting on tools and approvals). */
  | 'time_limit'
  /** The interpreter ran longer than its CPU budget. */
  | 'cpu_limit'
  | 'memory_limit'
  | 'stack_limit'
  /** The return value is not JSON or is too large. */
  | 'result_invalid'
  /** The `run_code` call was cancelled. */
  | 'aborted'
  /** The sandbox itself failed (for example the WebAssembly module could not load). */
  | 'runtime_error';

export interface CodeConsoleOutput {
  /** One entry per console call, `level: text`, bounded. */
  readonly lines: readonly string[];
  /** Output beyond the bound was dropped. */
  readonly truncated: boolean;
}

export type CodeRunResult =
  | { readonly ok: true; readonly value: unknown; readonly console: CodeConsoleOutput }
  | { readonly ok: false; readonly failure: CodeRunFailure; readonly message: string; readonly console: CodeConsoleOutput };
