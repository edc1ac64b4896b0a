import { ToolPolicyError, ToolUnavailableError, type ToolHost } from '../core/internal.js';

/** What a glob expands: GitPython's `index.add` reads each match of `*`, `?` or `[…]`, so the name judged is not the file read. */
const GLOB = /[*?[]/;

/**
 * For a tool whose server reads every file under a folder it is named, and
 * expands glob characters (mcp-server-git's `git_add`, through GitPython's
 * `index.add`, ignore rules and protected files included): refuse the call
 * unless each of `entries`, as the targets spelled them, names one file.
 * The floor judged the folder, not the files inside it: `files: ["./"]`
 * staged `.toolgate/` and `.env`, which `git_diff_staged` then showed. A
 * folder is told from a file by listing it through the host; anything but
 * "not a folder" refuses the call.
 */
export async function checkNamedFiles(host: ToolHost, tool: string, entries: readonly string[], signal?: AbortSignal): Promise<void> {
  if (entries.length === 0) return;
  if (entries.some((entry) => GLOB.test(entry))) throw new ToolPolicyError(tool, 'invalid_path', { detail: 'was refused: a file it names holds a glob character (*, ? or [), which the server expands to files nobody judged' });
  const fs = host.fs;
  if (fs === undefined) throw new ToolUnavailableError(tool, 'fs', 'the host cannot tell a folder the server would read whole from a file');
  for (const entry of entries) {
    // Listed without the judged target: that is checked just before (`recheckUpstreamTargets`), and with it the
    // host reads a folder where a file was judged as a change. So a protected file, even approved, is refused here.
    try {
      await fs.listDirectory(entry, { tool, depth: 1 }, signal);
    } catch (error) {
      if (error instanceof ToolPolicyError && error.reason === 'not_a_directory') continue;
      throw error instanceof ToolPolicyError ? error : new ToolPolicyError(tool, 'not_a_file', { detail: 'was refused: a file it names could not be checked to be a file', cause: error });
    }
    throw new ToolPolicyError(tool, 'not_a_file', { detail: 'was refused: it names a folder, which the server reads whole, ignored and protected files included; name the files' });
  }
}
