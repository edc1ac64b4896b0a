import { chmodSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomicSync } from '../../node/fs/write-file-atomic.js';

/** The file, in the user's toolgate folder, that npx and `npm exec` run a package's command through (`--script-shell`). */
export const NPM_SCRIPT_SHELL_FILE = 'npm-script-shell';

/**
 * npm runs the command of the package npx names through a shell, in the
 * folder npx was started in (the workspace), with `node_modules/.bin` of that
 * folder and of every folder above it ahead of the system's on PATH. The
 * package's own command comes first, but its `#!/usr/bin/env node` line, and
 * every program it starts by name, were then looked up there: a repository
 * that ships `node_modules/.bin/node` had its own script run in place of
 * node, by the README's `npx -y @modelcontextprotocol/server-filesystem .`,
 * whatever `--prefix` said. This shell takes out of PATH every
 * `node_modules/.bin` of the folder it runs in and of the folders above it,
 * each read without its trailing slashes, and every entry that is not an
 * absolute path (an empty one is the folder itself), then runs `/bin/sh`
 * with what npm gave it. The package's own folders (npx's cache) and those
 * of the prefix stay, even in a workspace that holds them (a home folder
 * served whole): only `node_modules/.bin` goes.
 */
const SCRIPT = `#!/bin/sh
# toolgate: npm runs a package's command through this shell. Takes every node_modules/.bin of the working folder and
# of the folders above it, and every relative or empty entry, out of PATH, then runs /bin/sh as npm asked.
set -f
here=$(pwd -P) || exit 1
kept=
IFS=:
for entry in $PATH; do
  case $entry in
    /*) ;;
    *) continue ;;
  esac
  while :; do
    case $entry in
      */) entry=\${entry%/} ;;
      *) break ;;
    esac
  done
  case $entry in
    */node_modules/.bin)
      case "$here/" in
        "\${entry%/node_modules/.bin}"/*) continue ;;
      esac
      ;;
  esac
  kept=\${kept:+$kept:}$entry
done
unset IFS
PATH=$kept; export PATH
exec /bin/sh "$@"
`;

/** Write the shell into `folder` (the user's toolgate folder, made before) and return its path. */
export function writeNpmScriptShell(folder: string): string {
  const file = join(folder, NPM_SCRIPT_SHELL_FILE);
  // Replaced, never written through: a link planted at this name would have the script land on what it leads to.
  writeFileAtomicSync(file, SCRIPT, { mode: 0o755 });
  chmodSync(file, 0o755);
  return file;
}
