import { ConfigurationError } from '../errors/tool-errors.js';
import { wireToolName } from '../names/wire-tool-name.js';
import type { CompiledTool } from '../tools/compile-tool.js';
import { deepFreeze } from '../tools/deep-freeze.js';
import { projectAnthropic } from './project-anthropic.js';
import { projectGemini } from './project-gemini.js';
import { projectMcp } from './project-mcp.js';
import { projectOpenAIChat } from './project-openai-chat.js';
import { projectOpenAIResponses } from './project-openai-responses.js';
import type { ProjectOptions, ProviderName, ProviderToolMap, ProviderTools } from './projection-types.js';

type Projector<TProvider extends ProviderName> = (tool: CompiledTool, name: string) => ProviderToolMap[TProvider];

const projectors: { readonly [TProvider in ProviderName]: Projector<TProvider> } = {
  'openai-chat': projectOpenAIChat,
  'openai-responses': projectOpenAIResponses,
  anthropic: projectAnthropic,
  gemini: projectGemini,
  mcp: projectMcp,
};

// Named in the refusal of any other provider: the caller's text is never echoed.
const PROVIDERS = Object.keys(projectors).join(', ');

// One projection per tool version and provider, shared by every snapshot and
// scope that holds the compiled tool: `with()` and `scope()` never recompute.
const cache: { readonly [TProvider in ProviderName]: WeakMap<CompiledTool, ProviderToolMap[TProvider]> } = {
  'openai-chat': new WeakMap(),
  'openai-responses': new WeakMap(),
  anthropic: new WeakMap(),
  gemini: new WeakMap(),
  mcp: new WeakMap(),
};

/**
 * Project compiled tools to one provider's wire shape, frozen. In the
 * `read-only` tier, tools whose policy class writes are not offered at all.
 * Callers cache the array per snapshot view.
 */
export function projectTools<TProvider extends ProviderName>(provider: TProvider, tools: readonly CompiledTool[], options: ProjectOptions = {}): ProviderTools<TProvider> {
  const projector = projectors[provider] as Projector<TProvider> | undefined;
  if (projector === undefined || !Object.hasOwn(projectors, provider)) throw new ConfigurationError('provider', `names no provider toolgate projects to (${PROVIDERS})`);
  const perTool = cache[provider] as WeakMap<CompiledTool, ProviderToolMap[TProvider]>;
  const offered = orderTools(options.tier === 'read-only' ? tools.filter((tool) => !writes(tool)) : tools, options.order);
  return Object.freeze(
    offered.map((tool) => {
      let projected = perTool.get(tool);
      if (projected === undefined) {
        projected = deepFreeze(projector(tool, wireToolName(tool.name, tool.version)));
        perTool.set(tool, projected);
      }
      return projected;
    }),
  );
}

/** A tool whose policy class writes: filesystem writes, processes, egress, OS actions. */
export function writes(tool: CompiledTool): boolean {
  const policy = tool.policyView.policy;
  return policy.fsWrite || policy.spawnsProcess || policy.egress !== undefined || policy.os || tool.policyView.effect !== 'read';
}

function byKey(left: CompiledTool, right: CompiledTool): number {
  return left.key < right.key ? -1 : left.key > right.key ? 1 : 0;
}

/** Listed names first, in the given order; the rest by key. */
function orderTools(tools: readonly CompiledTool[], order: readonly string[] | undefined): readonly CompiledTool[] {
  const sorted = [...tools].sort(byKey);
  if (order === undefined || order.length === 0) return sorted;
  const rank = new Map(order.map((name, index) => [name, index]));
  const rankOf = (tool: CompiledTool): number => rank.get(tool.key) ?? rank.get(tool.name) ?? Number.POSITIVE_INFINITY;
  // Array.prototype.sort is stable: equal ranks keep key order.
  return sorted.sort((left, right) => {
    const difference = rankOf(left) - rankOf(right);
    return Number.isNaN(difference) ? 0 : difference;
  });
}
