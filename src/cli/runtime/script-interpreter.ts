import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { launcherOf, resolvedFile } from './launcher-of.js';

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

/**
 * The `#!` line at the start of `text` (the file's first `SHEBANG_BYTES`),
 * or undefined when it has none, or one the kernel refuses to start. As
 * Linux reads it: the line ends at the first line feed, or, with none in the
 * buffer, one byte short of its end (the last byte is where the kernel ends
 * the string), and then only if the program's name ends before that (a name
 * cut short is refused); blanks around it are dropped; the program ends at
 * a blank or a NUL, and the argument, after the blanks that follow, at a NUL.
 */
export function parseShebang(text: string): ScriptInterpreter | undefined {
  if (!text.startsWith('#!')) return undefined;
  // A file shorter than the buffer leaves the rest of it zeroed.
  const buffer = text.slice(0, SHEBANG_BYTES).padEnd(SHEBANG_BYTES, '\0');
  const feed = buffer.indexOf('\n');
  const cut = feed === -1 ? SHEBANG_BYTES - 1 : feed;
  const line = buffer.slice(2, cut).replace(/^[ \t]+/, '');
  const name = /^[^ \t\0]+/.exec(line)?.[0];
  if (name === undefined) return undefined;
  // With no line feed the name must end within the buffer: the kernel starts nothing whose name it may have cut.
  if (feed === -1 && name.length === line.length) return undefined;
  const argument = line.slice(name.length).split('\0')[0]?.replace(/^[ \t]+|[ \t]+$/g, '');
  return { interpreter: name, argument: argument === undefined || argument === '' || line[name.length] === '\0' ? undefined : argument };
}

/** The `#!` line of the file a command names, looked up as spawn looks it up; undefined for a compiled program or none. */
export function scriptOf(command: string, searchPath: readonly string[]): ScriptInterpreter | undefined {
  const file = resolvedFile(command, searchPath);
  return file === undefined ? undefined : scriptInterpreter(file);
}

/** The program a `#!` line starts: `#!/usr/bin/env node` starts the one word after env, as if it were the line's program. */
export function programOf(script: ScriptInterpreter, searchPath: readonly string[]): { readonly program: string; readonly throughEnv: boolean } {
  const throughEnv = script.argument !== undefined && /^[^\s=-][^\s=]*$/.test(script.argument) && launcherOf(script.interpreter, searchPath) === 'env';
  return { program: throughEnv ? script.argument : script.interpreter, throughEnv };
}
