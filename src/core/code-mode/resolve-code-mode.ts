import { ConfigurationError } from '../errors/tool-errors.js';
import type { PresentationMode } from '../registry/registry-types.js';
import { compileTool, type CompiledTool } from '../tools/compile-tool.js';
import type { CodeRuntime } from './code-mode-types.js';
import { createRunCodeTool } from './create-run-code-tool.js';

const MODES: readonly PresentationMode[] = ['native', 'code', 'both'];

export interface CodeModeSettings {
  readonly presentAs: PresentationMode;
  readonly codeRuntime: CodeRuntime | undefined;
  readonly codeTool: CompiledTool | undefined;
}

/**
 * Registry configuration for presentation: the default mode and, when a
 * runtime is given, the compiled `run_code` transport. A code mode without a
 * runtime could never run a script, so it fails here, loudly.
 */
export function resolveCodeMode(options: { readonly presentAs?: PresentationMode | undefined; readonly codeRuntime?: CodeRuntime | undefined }): CodeModeSettings {
  const presentAs = checkPresentation(options.presentAs, 'presentAs') ?? 'native';
  const runtime = options.codeRuntime;
  if (runtime !== undefined) {
    if (typeof runtime !== 'object' || runtime === null || typeof runtime.run !== 'function' || typeof runtime.language !== 'string' || runtime.language.length === 0) {
      throw new ConfigurationError('codeRuntime', 'must be a Code Mode runtime with a language and a run function');
    }
    if (!Number.isInteger(runtime.maxTimeoutMs) || runtime.maxTimeoutMs < 1) throw new ConfigurationError('codeRuntime.maxTimeoutMs', 'must be a positive integer');
    if (runtime.maxConcurrentCalls !== undefined && (!Number.isInteger(runtime.maxConcurrentCalls) || runtime.maxConcurrentCalls < 1)) {
      throw new ConfigurationError('codeRuntime.maxConcurrentCalls', 'must be a positive integer');
    }
    if (runtime.maxDeliveredBytes !== undefined && (!Number.isInteger(runtime.maxDeliveredBytes) || runtime.maxDeliveredBytes < 0)) {
      throw new ConfigurationError('codeRuntime.maxDeliveredBytes', 'must be a non-negative integer');
    }
  }
  requireRuntime(presentAs, runtime, 'presentAs');
  return Object.freeze({ presentAs, codeRuntime: runtime, codeTool: runtime === undefined ? undefined : compileTool(createRunCodeTool(runtime)) });
}

/** A presentation mode from configuration, checked; undefined stays undefined. */
export function checkPresentation(mode: PresentationMode | undefined, field: string): PresentationMode | undefined {
  if (mode !== undefined && !MODES.includes(mode)) throw new ConfigurationError(field, 'must be native, code or both');
  return mode;
}

/** `code` and `both` need a runtime to run what they offer. */
export function requireRuntime(mode: PresentationMode | undefined, runtime: CodeRuntime | undefined, field: string): void {
  if (mode !== undefined && mode !== 'native' && runtime === undefined) {
    throw new ConfigurationError(field, `is "${mode}", which needs the registry's codeRuntime`);
  }
}

/**
 * What a mode offers the model as callable tools: the visible tools
 * (`native`), only the transport (`code`), or both. The catalog — `list()`
 * and `schemas()` — is the visible tools in every mode.
 */
export function offeredTools(mode: PresentationMode, visible: readonly CompiledTool[], codeTool: CompiledTool | undefined): readonly CompiledTool[] {
  if (mode === 'native' || codeTool === undefined) return visible;
  return mode === 'code' ? [codeTool] : [...visible, codeTool];
}
