import { gitHardeningEnv, withGitConfig } from '../node/process/build-child-env.js';
import { buildStdioEnv } from './build-stdio-env.js';
import { recognizeServer } from './known-server-targets.js';
import type { McpStdioServerConfig } from './mcp-types.js';

/**
 * A unified diff for git's external-diff call (`path old-file old-hex
 * old-mode new-file new-hex new-mode`). git runs `diff.external` through the
 * shell, so it can be given inline: the server's process has no file of the
 * host's to name, and git cannot unset the key, only replace it.
 */
const INLINE_DIFF = 'f() { diff -u --label "a/$1" --label "b/$1" -- "$2" "$5"; [ $? -le 1 ]; }; f';

/**
 * The environment a stdio upstream starts with (`buildStdioEnv`). For the
 * git reference server, whose git runs on the host outside any sandbox,
 * also the host's git hardening (`gitHardeningEnv`): command-line
 * configuration outranks the repository's own, so the fsmonitor, hooks,
 * pager, editors and `diff.external` of whatever repository the server is
 * named stay off, and `safe.bareRepository=explicit` keeps git from taking
 * a folder it starts in as a bare repository (a workspace can ship one as
 * ordinary files). Programs a repository names under names of its own
 * (`filter.<driver>.clean`, hooks GitPython runs itself) cannot be pinned in
 * advance: each call's repository is read first (`checkGitRepository`).
 */
export function upstreamStdioEnv(server: McpStdioServerConfig): Record<string, string> {
  const env = buildStdioEnv(server.env);
  if (recognizeServer(server)?.kind !== 'git') return env;
  return withGitConfig({ ...env, ...gitHardeningEnv(INLINE_DIFF) }, [['safe.bareRepository', 'explicit']]);
}
