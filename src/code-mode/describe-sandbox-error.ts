import type { QuickJSContext, QuickJSHandle } from 'quickjs-emscripten';
import { readSandboxString } from './read-sandbox-string.js';

/** What a script's exception says: QuickJS's own limits are recognised by name and message. */
export interface SandboxErrorView {
  readonly internal: boolean;
  readonly message: string;
  /** `Name: message (line n)`, bounded. */
  readonly text: string;
}

const MAX_ERROR_CHARS = 600;
/** The most of a name, message or stack read out of the sandbox; a longer one is not read at all. */
const MAX_READ_CHARS = 64 * 1024;
const NON_ERROR = 'a non-error value was thrown';
const TOO_LONG = `a value longer than ${MAX_READ_CHARS} characters was thrown`;

/**
 * An exception out of the sandbox, read one bounded property at a time
 * (never dumped whole: its message may be as large as the sandbox's memory).
 * Reading a property may run script code (a getter): call it inside an entry
 * into the interpreter.
 */
export function describeSandboxError(context: QuickJSContext, handle: QuickJSHandle): SandboxErrorView {
  const type = context.typeof(handle);
  if (type === 'string') {
    const text = readSandboxString(context, handle, MAX_READ_CHARS)?.slice(0, MAX_ERROR_CHARS) ?? TOO_LONG;
    return { internal: false, message: text, text };
  }
  if (type !== 'object' || context.sameValue(handle, context.null)) return { internal: false, message: NON_ERROR, text: NON_ERROR };
  const name = property(context, handle, 'name');
  const message = property(context, handle, 'message') ?? '';
  const stack = property(context, handle, 'stack');
  const line = stack === undefined ? undefined : /script\.js:(\d+)/.exec(stack)?.[1];
  const text = `${name ?? 'Error'}: ${message}${line === undefined ? '' : ` (line ${line})`}`;
  return { internal: name === 'InternalError', message, text: text.slice(0, MAX_ERROR_CHARS) };
}

function property(context: QuickJSContext, handle: QuickJSHandle, key: string): string | undefined {
  try {
    const value = context.getProp(handle, key);
    try {
      return readSandboxString(context, value, MAX_READ_CHARS);
    } finally {
      value.dispose();
    }
  } catch {
    return undefined;
  }
}
