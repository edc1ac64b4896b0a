import { actionDigestTarget } from '../action/action-digest-target.js';
import type { ResolvedAction } from '../action/resolved-action.js';
import type { CompiledTool } from '../tools/compile-tool.js';
import { canonicalJson } from './canonical-json.js';
import { sha256With, type Sha256Text } from './sha256.js';

export interface InvocationDigests {
  /** SHA-256 over the canonical effective arguments. */
  readonly inputDigest: string;
  /** SHA-256 over what the call would do: tool, version, agent, permissions, effect, risk, timeout, input digest and the resolved target. */
  readonly actionDigest: string;
}

export const ACTION_DIGEST_SCHEMA = 'toolgate/tool-invocation@v2';

/**
 * The action digest is what an approval binds to: the same digest means the
 * same tool version doing the same thing for the same agent, to the same
 * resolved target (real paths, the exact argv). It stores no input, secret
 * or handler — only the input's digest and where the call acts. `hash` is
 * a synchronous SHA-256 (see `Sha256Text`); without it Web Crypto is used.
 */
export async function computeInvocationDigests(tool: CompiledTool, agent: string | undefined, effectiveArgs: unknown, action?: ResolvedAction, hash?: Sha256Text): Promise<InvocationDigests> {
  return digestCanonicalInput(tool, agent, canonicalJson(effectiveArgs ?? {}), action, hash);
}

/**
 * The same digests from the canonical JSON text of the effective arguments,
 * when the caller has it already. Synchronous when `hash` is.
 */
export function digestCanonicalInput(
  tool: CompiledTool,
  agent: string | undefined,
  canonicalInput: string,
  action: ResolvedAction | undefined,
  hash: Sha256Text | undefined,
): InvocationDigests | Promise<InvocationDigests> {
  const inputDigest = sha256With(hash, canonicalInput);
  if (inputDigest instanceof Promise) return inputDigest.then((settled) => withActionDigest(tool, agent, settled, action, hash));
  return withActionDigest(tool, agent, inputDigest, action, hash);
}

function withActionDigest(tool: CompiledTool, agent: string | undefined, inputDigest: string, action: ResolvedAction | undefined, hash: Sha256Text | undefined): InvocationDigests | Promise<InvocationDigests> {
  const actionDigest = sha256With(hash, actionDigestText(tool, agent, inputDigest, action));
  return actionDigest instanceof Promise ? actionDigest.then((settled) => ({ inputDigest, actionDigest: settled })) : { inputDigest, actionDigest };
}

/** The members that depend on the tool version alone, encoded once per compiled tool. */
const toolParts = new WeakMap<CompiledTool, { readonly effect: string; readonly middle: string; readonly tail: string }>();

/**
 * The canonical JSON of `actionDigestValue`, assembled from its members:
 * the ones fixed by the tool are encoded once per tool, and only the agent,
 * the input digest and the target are encoded per call. Every member is
 * encoded by `canonicalJson`; what is fixed here is only the key order, which
 * is the canonical order (UTF-16 code units): agent, effect, inputDigest,
 * permissions, risk, schema, target, timeoutMs, tool, version. A test checks
 * the text against `canonicalJson` of the same members as one object.
 */
export function actionDigestText(tool: CompiledTool, agent: string | undefined, inputDigest: string, action: ResolvedAction | undefined): string {
  let parts = toolParts.get(tool);
  if (parts === undefined) {
    const view = tool.policyView;
    parts = {
      effect: `,"effect":${canonicalJson(view.effect)},"inputDigest":`,
      middle: `"permissions":${canonicalJson([...view.permissions].sort())},"risk":${canonicalJson(view.risk)},"schema":${canonicalJson(ACTION_DIGEST_SCHEMA)},`,
      tail: `"timeoutMs":${canonicalJson(tool.timeoutMs ?? null)},"tool":${canonicalJson(tool.name)},"version":${canonicalJson(tool.version ?? null)}}`,
    };
    toolParts.set(tool, parts);
  }
  return `{"agent":${canonicalJson(agent ?? null)}${parts.effect}${canonicalJson(inputDigest)},${parts.middle}"target":${canonicalJson(actionDigestTarget(action))},${parts.tail}`;
}
