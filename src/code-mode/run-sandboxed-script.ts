import type { QuickJSContext, QuickJSHandle, QuickJSRuntime, QuickJSWASMModule } from 'quickjs-emscripten';
import type { CodeConsoleOutput, CodeRunFailure, CodeRunRequest, CodeRunResult, CodeToolReply } from '../core/internal.js';
import { measureParsedJson } from '../core/dispatch/snapshot-json.js';
import { describeSandboxError } from './describe-sandbox-error.js';
import { readSandboxString } from './read-sandbox-string.js';
import { HOST_CALL, HOST_CONSOLE, RESULT_INVALID_MARK, sandboxPrelude, wrapScript, type PreludeLimits } from './sandbox-prelude.js';

/** The limits one run enforces (resolved from the runtime options). */
export interface SandboxLimits extends PreludeLimits {
  readonly memoryLimitBytes: number;
  readonly stackLimitBytes: number;
  readonly timeoutMs: number;
  readonly cpuTimeMs: number;
  readonly maxConsoleBytes: number;
}

export interface SandboxRunResult {
  readonly result: CodeRunResult;
  /** False when the module must not be reused (a host-side fault or an out-of-memory). */
  readonly reusable: boolean;
}

const TOOL_FAILED: CodeToolReply = { ok: false, error: { code: 'EXECUTION_FAILED', message: 'The tool call failed.', tool: undefined } };
const STOPPED: CodeToolReply = { ok: false, error: { code: 'ABORTED', message: 'The script stopped before this call started.', tool: undefined } };
const MAX_LEVEL_CHARS = 8;

/**
 * One script in a fresh QuickJS runtime and context on `module`. Limits:
 * QuickJS's allocator limit and the module's fixed WebAssembly memory
 * (memory), QuickJS's stack limit (stack), an interrupt handler checking
 * wall time, CPU time spent inside the interpreter and cancellation, a
 * wall-clock timer for time spent waiting on tools, and a check of both
 * after every synchronous entry into the interpreter (one built-in call
 * never reaches the interrupt handler and blocks the timer while it runs:
 * it cannot be stopped, but its result is refused). When the run ends for
 * any reason, every nested call still in flight is aborted and awaited
 * before the runtime is freed, so nothing outlives the `run_code` call.
 */
export async function runSandboxedScript(options: { readonly module: QuickJSWASMModule; readonly request: CodeRunRequest; readonly limits: SandboxLimits }): Promise<SandboxRunResult> {
  const run = new SandboxRun(options.module, options.request, options.limits);
  return run.start();
}

class SandboxRun {
  readonly #module: QuickJSWASMModule;
  readonly #request: CodeRunRequest;
  readonly #limits: SandboxLimits;
  readonly #calls = new AbortController();
  /** Tool calls whose promise has not settled yet; the run closes only at zero. */
  #unsettled = 0;
  #drained: (() => void) | undefined;
  /** Replies waiting for the next batched crossing into the sandbox. */
  #replies: [number, CodeToolReply][] = [];
  #nextCallId = 0;
  readonly #console: string[] = [];
  #consoleBytes = 0;
  #consoleTruncated = false;
  #active = 0;
  #cpuUsed = 0;
  #sliceStart = 0;
  #wallMs = 0;
  #wallDeadline = 0;
  #stop: { failure: CodeRunFailure; message: string } | undefined;
  #outcome: CodeRunResult | undefined;
  #faulted = false;
  #finish: (() => void) | undefined;
  #runtime!: QuickJSRuntime;
  #context!: QuickJSContext;
  #final: QuickJSHandle | undefined;
  /** The prelude's settle function: delivers a batch of replies. */
  #settle: QuickJSHandle | undefined;

  constructor(module: QuickJSWASMModule, request: CodeRunRequest, limits: SandboxLimits) {
    this.#module = module;
    this.#request = request;
    this.#limits = limits;
  }

  async start(): Promise<SandboxRunResult> {
    // A failure to create the sandbox rejects: the caller reports it and drops the module.
    this.#runtime = this.#module.newRuntime();
    this.#runtime.setMemoryLimit(this.#limits.memoryLimitBytes);
    this.#runtime.setMaxStackSize(this.#limits.stackLimitBytes);
    this.#runtime.setInterruptHandler(() => this.#shouldInterrupt());
    this.#context = this.#runtime.newContext();
    this.#wallMs = Math.min(this.#request.timeoutMs ?? this.#limits.timeoutMs, this.#limits.timeoutMs);
    this.#wallDeadline = performance.now() + this.#wallMs;
    const signal = this.#request.signal;
    const onAbort = (): void => this.#halt('aborted', 'the call was cancelled');
    const timer = setTimeout(() => this.#halt('time_limit', `after ${this.#wallMs} ms`), this.#wallMs);
    const finished = new Promise<void>((resolve) => (this.#finish = resolve));
    try {
      if (signal?.aborted === true) onAbort();
      else signal?.addEventListener('abort', onAbort, { once: true });
      if (this.#stop === undefined) this.#evaluate();
      this.#check();
      await finished;
    } catch (error) {
      this.#fault(error);
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    }
    const result = this.#outcome ?? this.#failed(this.#stop ?? { failure: 'runtime_error', message: 'the run ended without a result' });
    await this.#close();
    return { result, reusable: !this.#faulted && !(result.ok === false && result.failure === 'memory_limit') };
  }

  #evaluate(): void {
    const context = this.#context;
    const call = context.newFunction(HOST_CALL, (name, args) => this.#hostCall(name, args));
    const write = context.newFunction(HOST_CONSOLE, (level, text) => this.#hostConsole(level, text));
    context.setProp(context.global, HOST_CALL, call);
    context.setProp(context.global, HOST_CONSOLE, write);
    call.dispose();
    write.dispose();
    const prelude = this.#enter(() => context.evalCode(sandboxPrelude(this.#limits), 'prelude.js'));
    if (prelude.error !== undefined) {
      this.#settleFromError(prelude.error);
      return;
    }
    this.#settle = prelude.value;
    if (this.#stop !== undefined) return;
    const evaluated = this.#enter(() => context.evalCode(wrapScript(this.#request.code, this.#limits), 'script.js'));
    if (evaluated.error !== undefined) {
      this.#settleFromError(evaluated.error);
      return;
    }
    this.#final = evaluated.value;
    this.#pump();
  }

  /** The bridge: a tool call gets an id now; the governed dispatch's reply settles it later, in a batch. */
  #hostCall(nameHandle: QuickJSHandle, argsHandle: QuickJSHandle): QuickJSHandle {
    const context = this.#context;
    // The prelude bounds both before they cross (a name to MAX_TOOL_KEY_CHARS, arguments to maxArgumentChars).
    const name = context.typeof(nameHandle) === 'string' ? context.getString(nameHandle) : '';
    const text = context.typeof(argsHandle) === 'string' ? context.getString(argsHandle) : '';
    let args: unknown;
    try {
      args = text.length > this.#limits.maxArgumentChars ? undefined : (JSON.parse(text) as unknown);
    } catch {
      args = undefined; // The pipeline refuses it as invalid arguments.
    }
    const id = (this.#nextCallId += 1);
    this.#active += 1;
    this.#unsettled += 1;
    let pending: Promise<CodeToolReply>;
    try {
      // Inside one slice the timer cannot fire: a call made past a limit or a cancellation is never dispatched, so no one is asked to approve it.
      pending = this.#shouldInterrupt() ? Promise.resolve(STOPPED) : this.#request.callTool(name, args, this.#calls.signal);
    } catch {
      pending = Promise.resolve(TOOL_FAILED);
    }
    pending.then(
      (reply) => this.#reply(id, reply),
      () => this.#reply(id, TOOL_FAILED),
    );
    return context.newNumber(id);
  }

  #reply(id: number, reply: CodeToolReply): void {
    this.#unsettled -= 1;
    if (this.#unsettled === 0) this.#drained?.();
    if (this.#replies.push([id, reply]) === 1) queueMicrotask(() => this.#flush());
  }

  /** One crossing for every reply that arrived together, then the script's continuations run. */
  #flush(): void {
    const batch = this.#replies;
    this.#replies = [];
    this.#active -= batch.length;
    if (this.#outcome !== undefined || this.#stop !== undefined || this.#settle === undefined) return;
    let handle: QuickJSHandle | undefined;
    try {
      handle = this.#context.newString(encodeReplies(batch));
      const settle = this.#settle;
      const settled = this.#enter(() => this.#context.callFunction(settle, this.#context.undefined, handle as QuickJSHandle));
      if (settled.error !== undefined) {
        this.#settleFromError(settled.error);
        return;
      }
      settled.value.dispose();
    } catch (error) {
      this.#fault(error);
      return;
    } finally {
      handle?.dispose();
    }
    this.#pump();
  }

  #hostConsole(levelHandle: QuickJSHandle, textHandle: QuickJSHandle): void {
    const context = this.#context;
    if (this.#consoleTruncated) return;
    // The prelude cuts every line to the bound; a longer one means the script replaced what cuts it: dropped, never copied.
    const text = readSandboxString(context, textHandle, this.#limits.maxConsoleLineChars);
    const level = readSandboxString(context, levelHandle, MAX_LEVEL_CHARS) ?? 'log';
    const line = text === undefined || level === 'log' ? text : `${level}: ${text}`;
    // UTF-16 length × 3 bounds the UTF-8 size without encoding every line.
    const bytes = (line?.length ?? 0) * 3 + 1;
    if (line === undefined || this.#consoleBytes + bytes > this.#limits.maxConsoleBytes) {
      this.#consoleTruncated = true;
      return;
    }
    this.#consoleBytes += bytes;
    this.#console.push(line);
  }

  /** Run queued promise jobs (script continuations), then see whether the script settled. */
  #pump(): void {
    if (this.#outcome !== undefined || this.#stop !== undefined) return this.#check();
    try {
      const jobs = this.#enter(() => this.#runtime.executePendingJobs());
      // A job's own exception rejects the script's promise; the state check reads it there.
      if (jobs.error !== undefined) jobs.error.dispose();
    } catch (error) {
      this.#fault(error);
    }
    this.#check();
  }

  #check(): void {
    if (this.#outcome !== undefined) return;
    if (this.#stop !== undefined || this.#final === undefined) {
      if (this.#stop !== undefined) this.#end(this.#failed(this.#stop));
      return;
    }
    const state = this.#context.getPromiseState(this.#final);
    if (state.type === 'fulfilled') {
      this.#end(this.#readResult(state.value));
      state.value.dispose();
    } else if (state.type === 'rejected') {
      this.#settleFromError(state.error);
    } else if (this.#active === 0 && !this.#runtime.hasPendingJob()) {
      // Nothing can ever settle the script (no timers exist, no tool call is in flight).
      this.#end(this.#failed({ failure: 'script_error', message: 'the script awaits a promise that can never settle' }));
    }
  }

  #readResult(handle: QuickJSHandle): CodeRunResult {
    // The wrapper bounds the text, but the script may have replaced the Promise.prototype.then it settles through.
    const text = readSandboxString(this.#context, handle, this.#limits.maxResultChars);
    if (text === undefined) return this.#failed({ failure: 'result_invalid', message: this.#context.typeof(handle) === 'string' ? 'the result is too large' : '' });
    if (text.startsWith(RESULT_INVALID_MARK)) return this.#failed({ failure: 'result_invalid', message: text.slice(1) });
    let value: unknown;
    try {
      value = JSON.parse(text) as unknown;
    } catch {
      return this.#failed({ failure: 'result_invalid', message: '' });
    }
    // Length bounds the text, not the nesting: a deep value would break every later stringify or clone.
    const measured = measureParsedJson(value);
    if (!measured.ok) return this.#failed({ failure: 'result_invalid', message: measured.problem });
    return { ok: true, value, console: this.#consoleOutput() };
  }

  /** An exception out of the sandbox: a limit (by QuickJS's own message) or the script's error. */
  #settleFromError(handle: QuickJSHandle): void {
    // Reading its properties may run script code (getters): it is an entry like any other.
    const described = this.#enter(() => describeSandboxError(this.#context, handle));
    handle.dispose();
    if (this.#stop !== undefined) return this.#end(this.#failed(this.#stop));
    const failure: CodeRunFailure = described.internal && described.message === 'out of memory' ? 'memory_limit' : described.internal && described.message === 'stack overflow' ? 'stack_limit' : 'script_error';
    this.#end(this.#failed({ failure, message: failure === 'script_error' ? described.text : '' }));
  }

  #shouldInterrupt(): boolean {
    if (this.#stop !== undefined) return true;
    const now = performance.now();
    if (now > this.#wallDeadline) this.#halt('time_limit', `after ${this.#wallMs} ms`);
    else if (this.#cpuUsed + (now - this.#sliceStart) > this.#limits.cpuTimeMs) this.#halt('cpu_limit', `after ${this.#limits.cpuTimeMs} ms of CPU`);
    else if (this.#request.signal?.aborted === true) this.#halt('aborted', 'the call was cancelled');
    return this.#stop !== undefined;
  }

  /** Stop for a limit or a cancellation: the first reason wins; in-flight tool calls are aborted now. */
  #halt(failure: CodeRunFailure, message: string): void {
    if (this.#stop !== undefined || this.#outcome !== undefined) return;
    this.#stop = { failure, message };
    this.#calls.abort(new Error(`Code Mode script stopped: ${failure}`));
    // Outside the interpreter (waiting on tools) the run ends here; inside, the interrupt unwinds first.
    if (this.#sliceStart === 0) this.#check();
  }

  /**
   * Every synchronous entry into the interpreter. QuickJS polls the
   * interrupt handler only between bytecode steps, and while it runs the
   * host's timer cannot fire: one slow built-in call (a long `indexOf`, a
   * large sort) runs to its end. The time it took is checked here, when it
   * returns, so a limit it overran fails the run: it never reports `ok`.
   */
  #enter<T>(body: () => T): T {
    const started = performance.now();
    this.#sliceStart = started;
    try {
      return body();
    } finally {
      const now = performance.now();
      this.#cpuUsed += now - started;
      // Still inside the slice: #halt records the stop and leaves the ending to the caller's check.
      if (now > this.#wallDeadline) this.#halt('time_limit', `after ${this.#wallMs} ms`);
      else if (this.#cpuUsed > this.#limits.cpuTimeMs) this.#halt('cpu_limit', `after ${this.#limits.cpuTimeMs} ms of CPU`);
      this.#sliceStart = 0;
    }
  }

  #fault(error: unknown): void {
    this.#faulted = true;
    // The declaration names WebAssembly.Memory, which this project's lib does not declare.
    const memory = (this.#module.getWasmMemory() as unknown as { readonly buffer: ArrayBuffer }).buffer.byteLength;
    const exhausted = memory + 65_536 > this.#limits.memoryLimitBytes;
    this.#halt(exhausted ? 'memory_limit' : 'runtime_error', exhausted ? '' : error instanceof Error ? error.name : 'fault');
    this.#check();
  }

  #end(result: CodeRunResult): void {
    if (this.#outcome !== undefined) return;
    this.#outcome = result;
    this.#calls.abort(new Error('Code Mode script ended'));
    this.#finish?.();
  }

  #failed(stop: { failure: CodeRunFailure; message: string }): CodeRunResult {
    return { ok: false, failure: stop.failure, message: stop.message, console: this.#consoleOutput() };
  }

  #consoleOutput(): CodeConsoleOutput {
    return Object.freeze({ lines: Object.freeze([...this.#console]), truncated: this.#consoleTruncated });
  }

  /** Quiescence first (every nested call settled), then free the sandbox. */
  async #close(): Promise<void> {
    if (this.#unsettled > 0) await new Promise<void>((resolve) => (this.#drained = resolve));
    try {
      this.#settle?.dispose();
      this.#final?.dispose();
      this.#context.dispose();
      this.#runtime.dispose();
    } catch {
      this.#faulted = true;
    }
  }
}

/** Replies as the prelude reads them; a value that is not JSON becomes a typed failure for that call alone. */
function encodeReplies(batch: readonly (readonly [number, CodeToolReply])[]): string {
  const replacer = (_key: string, value: unknown): unknown => (typeof value === 'bigint' ? value.toString() : value);
  try {
    // No replacer on the common path: it would take JSON.stringify off its fast path.
    return JSON.stringify(batch);
  } catch {
    return JSON.stringify(
      batch.map(([id, reply]) => {
        try {
          JSON.stringify(reply, replacer);
          return [id, reply];
        } catch {
          return [id, NOT_JSON];
        }
      }),
      replacer,
    );
  }
}

const NOT_JSON: CodeToolReply = { ok: false, error: { code: 'OUTPUT_INVALID', message: 'The tool result is not JSON.', tool: undefined } };
