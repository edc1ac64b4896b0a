import { canonicalJson } from '../digest/canonical-json.js';
import { withholdValues } from '../errors/describe-issues.js';
import { ToolOutputInvalidError } from '../errors/tool-errors.js';
import type { CompiledTool } from '../tools/compile-tool.js';
import type { ValidationResult } from '../tools/schema-validator.js';
import type { ResolvedDispatchState, StageResult } from './dispatch-state.js';

const encoder = new TextEncoder();

/**
 * Stage 14: validate the result against the declared output schema. Tools
 * from untrusted sources (`schemaProfile: 'bounded'`) also have their
 * canonical result bounded (default 256 KiB).
 */
export function validateOutput(state: ResolvedDispatchState, result: StageResult): StageResult | Promise<StageResult> {
  const tool = state.tool;
  if (!result.ok) return result;
  if (tool.definition.schemaProfile === 'bounded') {
    const limit = state.snapshot.limits.maxOutputBytes;
    let size: number;
    try {
      size = encoder.encode(canonicalJson(result.value ?? null)).length;
    } catch {
      return { ok: false, error: new ToolOutputInvalidError(tool.key, [], 'the result is not JSON') };
    }
    if (size > limit) return { ok: false, error: new ToolOutputInvalidError(tool.key, [], `the result exceeds ${limit} bytes`) };
  }
  const validate = tool.validateOutput;
  if (validate === undefined) return result;
  const validated = validate(result.value);
  return validated instanceof Promise ? validated.then((settled) => accept(tool, result, settled)) : accept(tool, result, validated);
}

function accept(tool: CompiledTool, result: StageResult, validated: ValidationResult): StageResult {
  if (!validated.ok) return { ok: false, error: new ToolOutputInvalidError(tool.key, result.ok ? withholdValues(validated.issues, result.value, tool.declaredNames) : validated.issues) };
  return result.ok && validated.value !== result.value ? { ok: true, value: validated.value } : result;
}
