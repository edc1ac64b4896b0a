import type { PolicyTarget } from '../tools/tool-types.js';
import type { PolicyToolView } from './policy-types.js';
import { UPSTREAM_STAND_INS } from './claude-tool-names.js';

const { reads: READS, writes: WRITES, fetches: FETCHES, runs: RUNS } = UPSTREAM_STAND_INS;
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
 *
 * A tool that declares the fixed argv it runs answers the same way to the
 * deny and ask rules of the tool that runs commands (`Bash(…)`), judged on
 * that argv: registered under any name, `Bash(git commit:*)` still refuses a
 * tool that runs `git commit`.
 */
export function upstreamStandIns(tool: PolicyToolView, target: PolicyTarget | undefined): readonly string[] {
  if (tool.fixedArgv !== undefined) return RUNS;
  if (tool.source !== 'mcp' || target === undefined) return NONE;
  const paths = target.path !== undefined || target.paths !== undefined;
  const url = target.url !== undefined;
  const command = target.command !== undefined;
  if (!paths && !url && !command) return NONE;
  return Object.freeze([...(paths ? READS : NONE), ...(paths && tool.policy.fsWrite ? WRITES : NONE), ...(url ? FETCHES : NONE), ...(command ? RUNS : NONE)]);
}
