import type { PolicyTarget } from '../tools/tool-types.js';
import type { PolicyToolView } from './policy-types.js';

const READS = Object.freeze(['read_file', 'read_media', 'list_directory']);
const WRITES = Object.freeze(['write_file', 'edit_file']);
const FETCHES = Object.freeze(['http_request']);
const RUNS = Object.freeze(['run_command']);
const NONE: readonly string[] = Object.freeze([]);

/**
 * The built-ins whose deny and ask rules also reach an upstream MCP tool, by
 * the targets its call names: the rules of the tools that read files
 * (`Read(…)`, `Grep`, `LS`) when it names a path, those of the tools that
 * write them (`Edit(…)`, `Write(…)`) when it writes that path, `WebFetch(…)`
 * when it names a URL, `Bash(…)` when it names a command. A tool that writes
 * a path is reached by the read rules too: what writes a file can show it
 * (an edit answers with a diff). Allow rules never reach it this way: an
 * upstream tool is allowed by rules that name it (`mcp__fs__read_text_file`,
 * `mcp__fs`), so a built-in's allow can never loosen what another server does.
 */
export function upstreamStandIns(tool: PolicyToolView, target: PolicyTarget | undefined): readonly string[] {
  if (tool.source !== 'mcp' || target === undefined) return NONE;
  const paths = target.path !== undefined || target.paths !== undefined;
  const url = target.url !== undefined;
  const command = target.command !== undefined;
  if (!paths && !url && !command) return NONE;
  return Object.freeze([...(paths ? READS : NONE), ...(paths && tool.policy.fsWrite ? WRITES : NONE), ...(url ? FETCHES : NONE), ...(command ? RUNS : NONE)]);
}
