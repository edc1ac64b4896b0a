import type { ResolvedAction } from './resolved-action.js';

/**
 * The part of the resolved action an approval binds to, in the action
 * digest: where the call really acts (real paths, the exact argv and its
 * working directory and where the paths its arguments name really lead,
 * method and URL, server and tool), not how it was spelled: a link swapped
 * in an argument after approval no longer matches what was approved. The executable, new-file and hard-link facts are left out: they
 * belong to this machine at this moment, and the host re-checks them when
 * it performs the action.
 */
export function actionDigestTarget(action: ResolvedAction | undefined): unknown {
  if (action === undefined) return null;
  return {
    access: action.access,
    files: action.files.map((file) => file.real),
    command: action.command === undefined ? null : { argv: action.command.argv, cwd: action.command.cwd.real, arguments: action.command.arguments?.map((file) => file.real) ?? null },
    http: action.http === undefined ? null : { method: action.http.method, url: action.http.url },
    mcp: action.mcp === undefined ? null : { server: action.mcp.server, tool: action.mcp.tool ?? null },
    os: action.os?.action ?? null,
  };
}
