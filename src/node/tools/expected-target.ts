import type { ResolvedCommand, ResolvedPath, ToolDispatchContext } from '../../core/internal.js';

/**
 * The call's first file target as it was resolved before policy and
 * approval, for the host to re-check at execution (`expected`): a built-in
 * hands it on, so what the host performs is exactly what was judged.
 */
export function expectedFile(context: ToolDispatchContext): { expected?: ResolvedPath } {
  const file = context.action?.files[0];
  return file === undefined ? {} : { expected: file };
}

/** The same for a command: its argv, executable and working directory as resolved. */
export function expectedCommand(context: ToolDispatchContext): { expected?: ResolvedCommand } {
  const command = context.action?.command;
  return command === undefined ? {} : { expected: command };
}
