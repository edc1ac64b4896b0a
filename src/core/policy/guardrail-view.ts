import type { ResolvedPath } from '../action/resolved-action.js';
import { parseHttpsTarget } from './canonical-host.js';
import type { GuardrailView } from './check-guardrails.js';
import { isList } from './compile-rule.js';
import { normalizePath, type NormalizedPath } from './normalize-path.js';
import type { ArgumentPolicyInput } from './policy-types.js';
import { splitCommand } from './split-command.js';

/**
 * What the floor and the rules judge of one call: its command as argv, its
 * paths normalized against the workspace roots (as spelled, and where the
 * host resolved them), the host of its HTTPS URL, whether any path could
 * not be read, and whether a link led out of the workspace.
 */
export function guardrailView(input: ArgumentPolicyInput, roots: readonly string[]): GuardrailView {
  const { target, action } = input;
  const argv = commandArgv(input);
  const rawPaths = [...(target?.path === undefined ? [] : [target.path]), ...(isList(target?.paths) ? target.paths : [])];
  const paths: NormalizedPath[] = [];
  let invalidPath = false;
  for (const raw of rawPaths) {
    const normal = typeof raw === 'string' ? normalizePath(raw, roots) : undefined;
    if (normal === undefined) invalidPath = true;
    else paths.push(normal);
  }
  // Where each path really is, when a host resolved it somewhere else: rules and the floor judge both, so an
  // allow must cover the real target too and a deny on either one refuses.
  const linkedOut: ResolvedPath[] = [];
  for (const file of action?.resolvedBy === 'host' ? action.files : []) {
    if (file.real === file.path && !file.linkTraversal) continue;
    const real = normalizePath(file.real, roots);
    if (real === undefined) invalidPath = true;
    else if (!paths.some((known) => known.path === real.path)) paths.push(real);
    if (file.linkTraversal && file.outside) linkedOut.push(file);
  }
  return { argv, paths, host: httpsHost(target?.url), invalidPath, linkedOut: linkedOut.length > 0 };
}

/** The command as the host resolved it, else as the target spells it (a string or an argv of strings). */
function commandArgv({ target, action }: ArgumentPolicyInput): readonly string[] | undefined {
  if (action?.command !== undefined) return action.command.argv;
  const command: unknown = target?.command;
  if (typeof command === 'string') return splitCommand(command);
  return isList(command) && command.every((element) => typeof element === 'string') ? splitCommand(command) : undefined;
}

function httpsHost(url: unknown): string | undefined {
  if (typeof url !== 'string') return undefined;
  const parsed = parseHttpsTarget(url);
  return parsed.ok ? parsed.host : undefined;
}
