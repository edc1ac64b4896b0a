import { ConfigurationError } from '../errors/tool-errors.js';
import type { ToolInfo } from '../registry/registry-types.js';
import { renderPythonSdk } from './render-python-sdk.js';
import { renderTypeScriptSdk } from './render-typescript-sdk.js';

export type SdkRenderer = (tools: readonly ToolInfo[]) => string;

/** SDK renderers by runtime language. JavaScript runtimes read the TypeScript declarations. */
export const SDK_RENDERERS: Readonly<Record<string, SdkRenderer>> = Object.freeze({
  javascript: renderTypeScriptSdk,
  typescript: renderTypeScriptSdk,
  python: renderPythonSdk,
});

// Keyed by the frozen tool list a registry view computes once per snapshot.
const cache = new WeakMap<readonly ToolInfo[], Map<string, string>>();

/**
 * The SDK text for `tools` in `language`, rendered once per tool list and
 * language. A language with no renderer throws: a prompt that describes the
 * tools in the wrong language would be worse than no prompt.
 */
export function renderToolSdk(options: { readonly tools: readonly ToolInfo[]; readonly language: string }): string {
  const { tools, language } = options;
  const renderer = Object.hasOwn(SDK_RENDERERS, language) ? SDK_RENDERERS[language] : undefined;
  if (renderer === undefined) {
    throw new ConfigurationError('codeRuntime.language', `has no SDK renderer (renderers exist for ${Object.keys(SDK_RENDERERS).join(', ')})`);
  }
  let byLanguage = cache.get(tools);
  if (byLanguage === undefined) {
    byLanguage = new Map();
    cache.set(tools, byLanguage);
  }
  let text = byLanguage.get(language);
  if (text === undefined) {
    text = renderer(tools);
    byLanguage.set(language, text);
  }
  return text;
}
