import { ConfigurationError } from '../errors/tool-errors.js';
import type { ProjectOptions, ProviderName, ProviderTools } from '../projection/projection-types.js';
import { CODE_MODE_TOOL_NAME } from '../registry/registry-state.js';
import type { PresentationMode, ToolInfo, ToolRegistry } from '../registry/registry-types.js';
import { renderToolSdk } from './render-tool-sdk.js';

export interface AssembleToolPromptOptions<TProvider extends ProviderName> {
  /** The registry view the model acts through (a scope carries its own presentation). */
  readonly registry: ToolRegistry;
  readonly provider: TProvider;
  /** Tool contributions listed first, in this order. Every entry must be one the mode contributes. */
  readonly toolOrder?: readonly string[];
  readonly tier?: ProjectOptions['tier'];
}

export interface PromptSection {
  /** `tools:sdk`: the generated SDK; `tools:code-only`: the rule that only `run_code` is called directly. */
  readonly id: 'tools:sdk' | 'tools:code-only';
  readonly text: string;
}

export interface ToolPromptAssembly<TProvider extends ProviderName> {
  readonly mode: PresentationMode;
  /** The function definitions to send: the visible tools (`native`), `run_code` (`code`), or both. */
  readonly tools: ProviderTools<TProvider>;
  /** System-prompt sections, in order. Empty for `native`. */
  readonly sections: readonly PromptSection[];
}

const readOnlyViews = new WeakMap<readonly ToolInfo[], readonly ToolInfo[]>();

/**
 * The tool part of a prompt for one registry view. `native` contributes
 * the visible tools as function definitions; `code` contributes `run_code`,
 * the generated SDK and the code-only rule (which stage 2 enforces); `both`
 * contributes both forms and no rule. Throws when `toolOrder` names a tool
 * the mode does not contribute, or when the runtime's language has no SDK
 * renderer — loudly, at assembly, not later at the model.
 */
export function assembleToolPrompt<TProvider extends ProviderName>(options: AssembleToolPromptOptions<TProvider>): ToolPromptAssembly<TProvider> {
  const { registry, provider, tier } = options;
  const mode = registry.presentAs;
  const catalog = tier === 'read-only' ? readOnly(registry.list()) : registry.list();
  const toolOrder = options.toolOrder ?? [];
  if (!Array.isArray(toolOrder)) throw new ConfigurationError('toolOrder', 'must be an array of tool names');
  const contributed = new Set<string>(mode === 'code' ? [] : catalog.flatMap((tool) => [tool.name, tool.key]));
  if (mode !== 'native') contributed.add(CODE_MODE_TOOL_NAME);
  for (const [index, entry] of toolOrder.entries()) {
    if (typeof entry !== 'string' || !contributed.has(entry)) {
      const shown = typeof entry === 'string' ? `"${entry.slice(0, 64)}"` : 'a non-string entry';
      throw new ConfigurationError(`toolOrder[${index}]`, `names ${shown}, which the ${mode} presentation does not contribute`);
    }
  }

  const sections: PromptSection[] = [];
  if (mode !== 'native') {
    const runtime = registry.codeRuntime;
    if (runtime === undefined) throw new ConfigurationError('codeRuntime', `is required by the ${mode} presentation`);
    const sdk = renderToolSdk({ tools: catalog, language: runtime.language });
    const fence = runtime.language === 'python' ? 'python' : 'ts';
    sections.push({
      id: 'tools:sdk',
      text: `Tools are available inside ${CODE_MODE_TOOL_NAME} scripts (${runtime.language}) as these functions:\n\n\`\`\`${fence}\n${sdk}\`\`\``,
    });
    if (mode === 'code') {
      sections.push({
        id: 'tools:code-only',
        text: `Call only the ${CODE_MODE_TOOL_NAME} tool directly. Every other tool is reached only from inside a ${CODE_MODE_TOOL_NAME} script, as tools.<name>(args); a direct call to it is an unknown tool.`,
      });
    }
  }
  const tools = registry.project(provider, { ...(tier === undefined ? {} : { tier }), ...(toolOrder.length > 0 ? { order: toolOrder } : {}) });
  return Object.freeze({ mode, tools, sections: Object.freeze(sections) });
}

function readOnly(list: readonly ToolInfo[]): readonly ToolInfo[] {
  let view = readOnlyViews.get(list);
  if (view === undefined) {
    view = Object.freeze(list.filter((tool) => !tool.writes));
    readOnlyViews.set(list, view);
  }
  return view;
}
