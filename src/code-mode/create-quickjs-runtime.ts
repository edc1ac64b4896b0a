import { ConfigurationError, DEFAULT_MAX_CONCURRENT_CALLS, DEFAULT_MAX_DELIVERED_BYTES, MAX_NESTED_CALLS, type CodeRunRequest, type CodeRunResult, type CodeRuntime } from '../core/internal.js';
import { QUICKJS_BASE_MEMORY_BYTES, QuickJsModulePool } from './quickjs-module-pool.js';
import { runSandboxedScript, type SandboxLimits } from './run-sandboxed-script.js';

export interface QuickJsRuntimeOptions {
  /** Ceiling on the sandbox's whole WebAssembly memory, QuickJS included. Default 64 MiB; at least 24 MiB. */
  readonly memoryLimitBytes?: number;
  /** QuickJS stack limit. Default 256 KiB. */
  readonly stackLimitBytes?: number;
  /** Wall time per script, waiting on tools and approvals included; also the most a script may ask for. Default 30 s. */
  readonly timeoutMs?: number;
  /** Time spent inside the interpreter per script. Default 5 s. */
  readonly cpuTimeMs?: number;
  /** Console output kept per script (UTF-8 bytes, bounded conservatively). Default 16 KiB. */
  readonly maxConsoleBytes?: number;
  /** The script's JSON return value, in characters. Default 1 MiB. */
  readonly maxResultChars?: number;
  /** Tool calls one script may have running at once; later calls wait their turn. Default 8. */
  readonly maxConcurrentCalls?: number;
  /**
   * UTF-8 bytes of tool results (their JSON text) one script may receive in
   * all; the result that would pass it ends the run with `result_budget`
   * before it is copied. Default 16 MiB.
   */
  readonly maxDeliveredBytes?: number;
  /** Idle sandbox instances kept for reuse. Default 2. */
  readonly poolSize?: number;
}

const MIB = 1024 * 1024;

/**
 * A Code Mode runtime on QuickJS compiled to WebAssembly (no native build).
 * A script gets a fresh interpreter with no filesystem, network, timers,
 * modules or host objects: only `tools.<name>(args)` — each a governed
 * nested dispatch returning a promise — and a bounded `console`.
 */
export function createQuickJsRuntime(options: QuickJsRuntimeOptions = {}): CodeRuntime {
  const limits: SandboxLimits = Object.freeze({
    memoryLimitBytes: bounded(options.memoryLimitBytes, 64 * MIB, QUICKJS_BASE_MEMORY_BYTES + 8 * MIB, 2048 * MIB, 'memoryLimitBytes'),
    stackLimitBytes: bounded(options.stackLimitBytes, 256 * 1024, 16 * 1024, 8 * MIB, 'stackLimitBytes'),
    timeoutMs: bounded(options.timeoutMs, 30_000, 1, 60 * 60 * 1000, 'timeoutMs'),
    cpuTimeMs: bounded(options.cpuTimeMs, 5_000, 1, 60 * 60 * 1000, 'cpuTimeMs'),
    maxConsoleBytes: bounded(options.maxConsoleBytes, 16 * 1024, 0, 16 * MIB, 'maxConsoleBytes'),
    maxResultChars: bounded(options.maxResultChars, MIB, 1, 64 * MIB, 'maxResultChars'),
    maxArgumentChars: MIB,
    maxConsoleLineChars: 4096,
  });
  const pool = new QuickJsModulePool(limits.memoryLimitBytes, bounded(options.poolSize, 2, 0, 64, 'poolSize'));

  const run = async (request: CodeRunRequest): Promise<CodeRunResult> => {
    let module;
    try {
      module = await pool.acquire();
    } catch {
      return { ok: false, failure: 'runtime_error', message: 'the sandbox could not be loaded', console: EMPTY_CONSOLE };
    }
    try {
      const { result, reusable } = await runSandboxedScript({ module, request, limits });
      pool.release(module, reusable);
      return result;
    } catch {
      return { ok: false, failure: 'runtime_error', message: 'the sandbox could not be created', console: EMPTY_CONSOLE };
    }
  };
  return Object.freeze({
    language: 'javascript',
    maxTimeoutMs: limits.timeoutMs,
    maxConcurrentCalls: bounded(options.maxConcurrentCalls, DEFAULT_MAX_CONCURRENT_CALLS, 1, MAX_NESTED_CALLS, 'maxConcurrentCalls'),
    maxDeliveredBytes: bounded(options.maxDeliveredBytes, DEFAULT_MAX_DELIVERED_BYTES, 0, 1024 * MIB, 'maxDeliveredBytes'),
    run,
  });
}

const EMPTY_CONSOLE = Object.freeze({ lines: Object.freeze([]), truncated: false });

function bounded(value: number | undefined, fallback: number, min: number, max: number, field: string): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < min || value > max) throw new ConfigurationError(field, `must be an integer from ${min} to ${max}`);
  return value;
}
