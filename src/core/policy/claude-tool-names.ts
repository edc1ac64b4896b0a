/**
 * Claude Code tool names → toolgate tool names. The one place this
 * translation lives in the policy engine, so it can be switched to the
 * shared name map in one edit. Unknown names map to nothing (the importer
 * reports them).
 */
const CLAUDE_TO_TOOLGATE: Readonly<Record<string, readonly string[]>> = Object.freeze({
  Bash: ['run_command'],
  Read: ['read_file', 'list_directory'],
  Edit: ['write_file', 'edit_file'],
  MultiEdit: ['write_file', 'edit_file'],
  Write: ['write_file'],
  NotebookEdit: ['write_file', 'edit_file'],
  Glob: ['list_directory'],
  Grep: ['search_files'],
  LS: ['list_directory'],
  WebFetch: ['http_request'],
  WebSearch: ['web_search'],
});

export function toolgateNamesFor(claudeName: string): readonly string[] | undefined {
  if (Object.hasOwn(CLAUDE_TO_TOOLGATE, claudeName)) return CLAUDE_TO_TOOLGATE[claudeName];
  // mcp__server__tool → mcp_server_tool (seed 000 ids), and the literal name.
  const mcp = /^mcp__([A-Za-z0-9_-]+?)__([A-Za-z0-9_-]+)$/.exec(claudeName);
  if (mcp !== null) return [`mcp_${mcp[1] ?? ''}_${mcp[2] ?? ''}`.toLowerCase().replace(/-/g, '_'), claudeName];
  return undefined;
}

/** Which kind of argument a Claude Code tool's specifier talks about. */
export function claudeSpecifierKind(claudeName: string): 'argv' | 'path' | 'domain' | 'query' | undefined {
  if (claudeName === 'Bash') return 'argv';
  if (['Read', 'Edit', 'MultiEdit', 'Write', 'NotebookEdit', 'Glob', 'Grep', 'LS'].includes(claudeName)) return 'path';
  if (claudeName === 'WebFetch') return 'domain';
  if (claudeName === 'WebSearch') return 'query';
  return undefined;
}
