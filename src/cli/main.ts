#!/usr/bin/env node
// The toolgate command line. Commands arrive with the CLI issue; for now it prints its help.
const help = `toolgate — the governed tool runtime for AI agents

Usage: toolgate <command>

Commands:
  serve     serve the governed tools to any MCP client (with the web console)
  call      make one governed call from the terminal
  tools     list the tools
  policy    explain, import or check the policy
  audit     tail, show, verify or export the journal
  replay    replay a recorded run
`;
process.stdout.write(help);
