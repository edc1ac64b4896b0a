import { actionDigestTarget } from '../action/action-digest-target.js';
import type { ResolvedAction } from '../action/resolved-action.js';
import type { CompiledTool } from '../tools/compile-tool.js';
import { canonicalJson } from './canonical-json.js';
import { sha256Hex } from './sha256.js';

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
 * or handler — only the input's digest and where the call acts.
 */
export function computeInvocationDigests(tool: CompiledTool, agent: string | undefined, effectiveArgs: unknown, action?: ResolvedAction): Promise<InvocationDigests> {
  return digestCanonicalInput(tool, agent, canonicalJson(effectiveArgs ?? {}), action);
}

/** The same digests from the canonical JSON text of the effective arguments, when the caller has it already. */
export async function digestCanonicalInput(tool: CompiledTool, agent: string | undefined, canonicalInput: string, action?: ResolvedAction): Promise<InvocationDigests> {
  const inputDigest = await sha256Hex(canonicalInput);
  const view = tool.policyView;
  const actionDigest = await sha256Hex(
    canonicalJson({
      schema: ACTION_DIGEST_SCHEMA,
      tool: tool.name,
      version: tool.version ?? null,
      agent: agent ?? null,
      permissions: [...view.permissions].sort(),
      effect: view.effect,
      risk: view.risk,
      timeoutMs: tool.timeoutMs ?? null,
      inputDigest,
      target: actionDigestTarget(action),
    }),
  );
  return { inputDigest, actionDigest };
}
