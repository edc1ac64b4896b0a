/** Bounds the prelude enforces inside the sandbox, before anything is copied out. */
export interface PreludeLimits {
  readonly maxResultChars: number;
  readonly maxArgumentChars: number;
  readonly maxConsoleLineChars: number;
}

/** The host functions the prelude captures and then deletes from the global object. */
export const HOST_CALL = '__toolgate_call';
export const HOST_CONSOLE = '__toolgate_console';
/** Marks a result the script returned that is not bounded JSON (valid JSON never starts with it). */
export const RESULT_INVALID_MARK = '!';
/** No tool key is longer: a longer name crosses to the host as no name at all, which no tool resolves. */
export const MAX_TOOL_KEY_CHARS = 1024;

/**
 * Runs first in every fresh context. It captures the two host functions in a
 * closure and removes them from the global object, so a script reaches the
 * host only through `tools.<name>(args)` (one governed call, JSON in, JSON
 * out) and `console.*` (bounded text). `tools` is a proxy: any name is a
 * function, and the pipeline decides whether it resolves. A call returns an
 * id at once; replies arrive in batches through the settle function the
 * prelude evaluates to, so one crossing serves every call that finished
 * together. A refusal is a `ToolCallError` the script may catch.
 */
export function sandboxPrelude(limits: PreludeLimits): string {
  return `(() => {
  'use strict';
  const call = globalThis.${HOST_CALL};
  const write = globalThis.${HOST_CONSOLE};
  delete globalThis.${HOST_CALL};
  delete globalThis.${HOST_CONSOLE};
  // Captured now, so a script replacing JSON or Map cannot disturb the bridge.
  const { parse, stringify } = JSON;
  const waiting = new Map();
  class ToolCallError extends Error {
    constructor(view) {
      super(String(view.message));
      this.name = 'ToolCallError';
      this.code = String(view.code);
      this.tool = view.tool;
      if (view.reason !== undefined) this.reason = String(view.reason);
    }
  }
  // A primitive string's length cannot be replaced by the script: these two checks bound all a call copies out.
  const invoke = (name, args) => new Promise((resolve, reject) => {
    const text = stringify(args === undefined ? {} : args);
    if (typeof text !== 'string') throw new TypeError('Tool arguments must be a JSON object.');
    if (text.length > ${limits.maxArgumentChars}) throw new RangeError('Tool arguments are too large.');
    waiting.set(call(name.length > ${MAX_TOOL_KEY_CHARS} ? '' : name, text), { resolve, reject });
  });
  const tools = new Proxy(Object.freeze({}), {
    get(_target, key) {
      // 'then' stays undefined so that awaiting the tools object itself is harmless.
      if (typeof key !== 'string' || key === 'then') return undefined;
      return (args) => invoke(key, args);
    },
    set() { return false; },
    defineProperty() { return false; },
  });
  const format = (value) => {
    if (typeof value === 'string') return value;
    try { const text = stringify(value); return text === undefined ? String(value) : text; } catch { return String(value); }
  };
  const level = (name) => (...values) => { write(name, values.map(format).join(' ').slice(0, ${limits.maxConsoleLineChars})); };
  const console = Object.freeze({ log: level('log'), info: level('info'), warn: level('warn'), error: level('error'), debug: level('debug') });
  const fixed = { enumerable: false, writable: false, configurable: false };
  Object.defineProperty(globalThis, 'tools', { ...fixed, value: tools });
  Object.defineProperty(globalThis, 'console', { ...fixed, value: console });
  Object.defineProperty(globalThis, 'ToolCallError', { ...fixed, value: ToolCallError });
  // The completion value: the host settles a batch of calls with it, as [[id, reply], ...] JSON.
  return (batch) => {
    for (const [id, reply] of parse(batch)) {
      const entry = waiting.get(id);
      if (entry === undefined) continue;
      waiting.delete(id);
      if (reply.ok) entry.resolve(reply.value);
      else entry.reject(new ToolCallError(reply.error));
    }
  };
})();`;
}

/**
 * The script as the body of an async function, on the same first line so
 * error line numbers match the model's code. The settled value is a JSON
 * string, or the invalid mark and a reason when the value is not bounded JSON.
 */
export function wrapScript(code: string, limits: PreludeLimits): string {
  return `(async () => {${code}
})().then((value) => {
  let text;
  try { text = JSON.stringify(value === undefined ? null : value); } catch (error) { return '${RESULT_INVALID_MARK}' + String(error && error.message); }
  if (text === undefined) return 'null';
  if (text.length > ${limits.maxResultChars}) return '${RESULT_INVALID_MARK}the result is larger than ${limits.maxResultChars} characters';
  return text;
})`;
}
