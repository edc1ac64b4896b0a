import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { CliError } from '../cli-error.js';
import { writeFileAtomicSync } from '../../node/fs/write-file-atomic.js';

/** The file `toolgate init` writes: JSON with comments, and a `$schema` so editors complete it. */
export const DEFAULT_CONFIG_TEXT = `{
  // Editors complete and check this file through the schema.
  "$schema": "./node_modules/toolgate/schema/toolgate.config.schema.json",

  // The jail of every filesystem tool, relative to this file.
  "workspace": ".",
  // read-only | workspace-write | full
  "scope": "read-only",
  // ask | plan | accept-edits | auto — how governed calls (writes, commands, network) are approved.
  "mode": "ask",

  "policy": {
    // Claude Code-style rules, decided within the allowlists below; a deny always wins. A rule never
    // widens an allowlist: to allow "git diff HEAD", add ["git", "diff", "HEAD"] to allowedCommands too.
    "allow": ["Read(./**)", "Bash(git status)", "Bash(git diff)"],
    "ask": [],
    "deny": ["Read(./.env*)"],
    // Exact commands that may run at all (argv, byte for byte). Empty: none.
    "allowedCommands": [["git", "status"], ["git", "diff"]],
    // Exact HTTPS hosts http_request may reach. Empty: none.
    "allowedDomains": [],
    // Never approved automatically, in any mode (on top of .git, .env*, .ssh, …).
    "protectedPaths": []
  },

  // Upstream MCP servers, served as mcp_{server}_{tool}. Every tool of them asks, unless the server is
  // trusted ("trust": "annotations") and the tool read-only, or "tools": { "<tool>": { "governed": false } } says so.
  // "targets": { "<tool>": { "path": "/path", "url": "/url" } } points the policy at its arguments (shipped for
  // @modelcontextprotocol/server-filesystem, mcp-server-fetch and mcp-server-git).
  "servers": {},

  // The tamper-evident journal of every governed call.
  "journal": { "path": ".toolgate/journal.db" },

  // The web console for approvals and audit (127.0.0.1 only; 0 picks a free port).
  "console": { "enabled": true, "port": 0 }
}
`;

export interface InitResult {
  readonly file: string;
}

/** Write `toolgate.config.json` in `cwd`; refuses to overwrite unless forced. */
export function runInit(cwd: string, options: { force?: boolean } = {}): InitResult {
  const file = resolve(cwd, 'toolgate.config.json');
  if (existsSync(file) && options.force !== true) throw new CliError('usage', `${file} already exists (use --force to overwrite).`);
  writeFileAtomicSync(file, DEFAULT_CONFIG_TEXT, { mode: 0o644 });
  return { file };
}
