import type { QuickJSContext, QuickJSHandle } from 'quickjs-emscripten';

/**
 * A string out of the sandbox, or undefined when the value is no string or
 * is longer than `maxChars`. The length is read inside the sandbox first, so
 * an oversized string is never copied into the host's heap. The prelude
 * bounds what it hands over, but a script can replace the built-ins it relies
 * on (`String.prototype.slice`, `Promise.prototype.then`), and a tool name is
 * any property key the script spells: whatever crosses here may be as large
 * as the sandbox's memory, many times over.
 */
export function readSandboxString(context: QuickJSContext, handle: QuickJSHandle, maxChars: number): string | undefined {
  if (context.typeof(handle) !== 'string') return undefined;
  // A string's own length: no script code runs to read it.
  const lengthHandle = context.getProp(handle, 'length');
  const length = context.getNumber(lengthHandle);
  lengthHandle.dispose();
  return length <= maxChars ? context.getString(handle) : undefined;
}
