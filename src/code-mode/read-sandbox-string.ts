import type { QuickJSContext, QuickJSHandle } from 'quickjs-emscripten';

/**
 * A string out of the sandbox, or undefined when the value is no string or
 * is longer than `maxChars`. The length is read inside the sandbox first, so
 * an oversized string is never copied into the host's heap. For what the
 * prelude cannot bound on its own: a console line, the result and an error
 * reach the host through built-ins the script can replace
 * (`String.prototype.slice`, `Promise.prototype.then`, a getter), and may be
 * as large as the sandbox's memory.
 */
export function readSandboxString(context: QuickJSContext, handle: QuickJSHandle, maxChars: number): string | undefined {
  if (context.typeof(handle) !== 'string') return undefined;
  // A string's own length: no script code runs to read it.
  const lengthHandle = context.getProp(handle, 'length');
  const length = context.getNumber(lengthHandle);
  lengthHandle.dispose();
  return length <= maxChars ? context.getString(handle) : undefined;
}
