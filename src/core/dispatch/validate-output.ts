import { exceedsJsonTextBytes } from '../bounding/exceeds-json-text-bytes.js';
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
 * canonical result bounded (default 256 KiB), and so does a structured value
 * an MCP server sent: unlike text, which the content's ceiling cuts, it
 * reaches a client whole (`structuredContent`), a script whole, and the
 * journal whole.
 */
export function validateOutput(state: ResolvedDispatchState, result: StageResult): StageResult | Promise<StageResult> {
  const tool = state.tool;
  if (!result.ok) return result;
  const problem = tool.definition.schemaProfile === 'bounded' ? boundedProblem(state, result.value) : structuredProblem(state, result.value);
  if (problem !== undefined) return { ok: false, error: new ToolOutputInvalidError(tool.key, [], problem) };
  const validate = tool.validateOutput;
  if (validate === undefined) return result;
  const validated = validate(result.value);
  return validated instanceof Promise ? validated.then((settled) => accept(tool, result, settled)) : accept(tool, result, validated);
}

/** What is wrong with a bounded tool's result: its canonical JSON past the output ceiling, or none at all. */
function boundedProblem(state: ResolvedDispatchState, value: unknown): string | undefined {
  const limit = state.snapshot.limits.maxOutputBytes;
  let size: number;
  try {
    size = encoder.encode(canonicalJson(value ?? null)).length;
  } catch {
    return 'the result is not JSON';
  }
  return size > limit ? `the result exceeds ${limit} bytes` : undefined;
}

/**
 * An MCP server's structured value past the output ceiling, measured as the
 * text of its JSON without building it (`exceedsJsonTextBytes`).
 */
function structuredProblem(state: ResolvedDispatchState, value: unknown): string | undefined {
  if (state.tool.definition.source !== 'mcp' || typeof value !== 'object' || value === null) return undefined;
  const limit = state.snapshot.limits.maxOutputBytes;
  return exceedsJsonTextBytes(value, limit) ? `the structured result exceeds ${limit} bytes` : undefined;
}

function accept(tool: CompiledTool, result: StageResult, validated: ValidationResult): StageResult {
  if (!validated.ok) return { ok: false, error: new ToolOutputInvalidError(tool.key, result.ok ? withholdValues(validated.issues, result.value, tool.declaredNames) : validated.issues) };
  return result.ok && validated.value !== result.value ? { ok: true, value: validated.value } : result;
}
