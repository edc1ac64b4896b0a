import { canonicalJson } from '../digest/canonical-json.js';
import { digestCanonicalInput, type InvocationDigests } from '../digest/invocation-digests.js';
import { ToolArgsInvalidError } from '../errors/tool-errors.js';
import type { ResolvedDispatchState } from './dispatch-state.js';

const encoder = new TextEncoder();

/**
 * Digests are computed only when a feature of the call needs them, and then
 * once: the canonical text of the arguments is built here a single time and
 * both digests derive from it. Mapped and configured values bound for a
 * rebuilding validator were never walked (stage 5), so their JSON form and
 * canonical size are checked here, where the canonical text is built anyway:
 * a value with no JSON form, or one over the input limit, fails closed as
 * ARGS_INVALID. With the snapshot's synchronous SHA-256 the answer is ready
 * now; otherwise it is Web Crypto's promise.
 */
export function ensureDigests(state: ResolvedDispatchState): InvocationDigests | ToolArgsInvalidError | Promise<InvocationDigests> {
  if (state.digests !== undefined) return state.digests;
  const tool = state.tool;
  let canonical: string;
  try {
    canonical = canonicalJson(state.effectiveArgs ?? {});
  } catch {
    return new ToolArgsInvalidError(tool.key, [], 'the arguments have no JSON form');
  }
  const limit = state.snapshot.limits.maxInputBytes;
  if (state.argsUnchecked && canonical.length > limit / 3 && encoder.encode(canonical).length > limit) {
    return new ToolArgsInvalidError(tool.key, [], `the arguments exceed ${limit} bytes`);
  }
  const digests = digestCanonicalInput(tool, state.agent, canonical, state.action, state.snapshot.sha256);
  if (digests instanceof Promise) return digests.then((settled) => (state.digests = settled));
  state.digests = digests;
  return digests;
}
