import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';

/** How much of a file Linux reads for its `#!` line (BINPRM_BUF_SIZE): a longer line is cut there. */
const SHEBANG_BYTES = 256;

/** What a script's `#!` line names: the program the kernel starts in its place, and the one argument it passes first. */
export interface ScriptInterpreter {
  readonly interpreter: string;
  /** The rest of the line, blanks inside it kept: Linux passes it as one argument, never split. */
  readonly argument: string | undefined;
}

/**
 * The interpreter the `#!` line of `file` names, read as Linux reads it:
 * after `#!` and any blanks, the program up to the next blank, then the rest
 * of the line, trimmed, as one argument. The kernel then starts that program
 * with the argument, the script's path and the script's own arguments.
 * Undefined for anything else: a compiled program, a file that is not a
 * regular file, or one toolgate cannot read (nor can an interpreter, which
 * opens it the same way). Opened without blocking: a named pipe under the
 * command's name would hold the start forever.
 */
export function scriptInterpreter(file: string): ScriptInterpreter | undefined {
  let descriptor: number;
  try {
    descriptor = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
  try {
    if (!fstatSync(descriptor).isFile()) return undefined;
    const head = Buffer.alloc(SHEBANG_BYTES);
    const read = readSync(descriptor, head, 0, SHEBANG_BYTES, 0);
    return parseShebang(head.subarray(0, read).toString('latin1'));
  } catch {
    return undefined;
  } finally {
    closeSync(descriptor);
  }
}

/** The `#!` line at the start of `text`, or undefined when it has none or names no program. */
export function parseShebang(text: string): ScriptInterpreter | undefined {
  if (!text.startsWith('#!')) return undefined;
  const line = (text.slice(2).split('\n')[0] ?? '').replace(/^[ \t]+|[ \t]+$/g, '');
  const match = /^([^ \t]+)(?:[ \t]+(.+))?$/s.exec(line);
  if (match === null) return undefined;
  return { interpreter: match[1] as string, argument: match[2] };
}
