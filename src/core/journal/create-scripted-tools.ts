import { ConfigurationError, ToolExecutionError } from '../errors/tool-errors.js';
import { canonicalJson } from '../digest/canonical-json.js';
import type { AnyToolDefinition, JournalTier, JsonSchema, ToolEffect, ToolPolicyClass, ToolRisk } from '../tools/tool-types.js';

/** One scripted answer: a result, or a failure the pipeline reports as `EXECUTION_FAILED` with this detail. */
export type ScriptedAnswer =
  | { readonly when?: Readonly<Record<string, unknown>>; readonly result: unknown }
  | { readonly when?: Readonly<Record<string, unknown>>; readonly error: string };

export interface ToolScript {
  readonly name: string;
  readonly description?: string;
  /** The input JSON Schema. Default: any object. */
  readonly input?: JsonSchema;
  readonly effect?: ToolEffect;
  readonly risk?: ToolRisk;
  readonly policy?: ToolPolicyClass;
  readonly journal?: JournalTier;
  /**
   * Answers, consumed in order. An answer with `when` is taken only by a call
   * whose arguments contain those fields with equal values; the first
   * matching unconsumed answer wins. The last answer repeats once the others
   * are used up.
   */
  readonly answers: readonly ScriptedAnswer[];
}

export interface ScriptedCall {
  readonly tool: string;
  readonly args: unknown;
  /** Which answer (by position in `answers`) was given. */
  readonly answer: number;
}

export interface ScriptedTools {
  readonly tools: readonly AnyToolDefinition[];
  /** Every call, in order. */
  readonly calls: readonly ScriptedCall[];
  /** Forget the calls and start every script from its first answer. */
  reset(): void;
}

const ANY_OBJECT: JsonSchema = Object.freeze({ type: 'object' });

function matches(when: Readonly<Record<string, unknown>> | undefined, args: unknown): boolean {
  if (when === undefined) return true;
  if (typeof args !== 'object' || args === null) return false;
  return Object.entries(when).every(([key, expected]) => canonicalJson((args as Record<string, unknown>)[key] ?? null) === canonicalJson(expected ?? null));
}

/**
 * Deterministic tools for tests and evals: each answers from its script, in
 * order, with no clock, randomness or host use, so an agent run against them
 * is reproducible. The definitions go through the full pipeline like any
 * other tool (validation, policy, approval, journal).
 */
export function createScriptedTools(scripts: readonly ToolScript[]): ScriptedTools {
  const calls: ScriptedCall[] = [];
  const used = new Map<string, Set<number>>();
  const tools = scripts.map((script): AnyToolDefinition => {
    if (!Array.isArray(script.answers) || script.answers.length === 0) throw new ConfigurationError(`scripts.${String(script.name)}.answers`, 'must hold at least one answer');
    return {
      name: script.name,
      description: script.description ?? `Scripted tool ${script.name}.`,
      input: script.input ?? ANY_OBJECT,
      ...(script.effect === undefined ? {} : { effect: script.effect }),
      ...(script.risk === undefined ? {} : { risk: script.risk }),
      ...(script.policy === undefined ? {} : { policy: script.policy }),
      ...(script.journal === undefined ? {} : { journal: script.journal }),
      dispatch: (args: unknown) => {
        const taken = used.get(script.name) ?? new Set<number>();
        used.set(script.name, taken);
        const last = script.answers.length - 1;
        let index = script.answers.findIndex((answer, position) => position !== last && !taken.has(position) && matches(answer.when, args));
        if (index === -1) index = matches(script.answers[last]?.when, args) ? last : -1;
        calls.push(Object.freeze({ tool: script.name, args, answer: index }));
        if (index === -1) throw new ToolExecutionError(script.name, { detail: 'no scripted answer matches these arguments' });
        taken.add(index);
        const answer = script.answers[index] as ScriptedAnswer;
        if ('error' in answer) throw new ToolExecutionError(script.name, { detail: answer.error });
        return answer.result;
      },
    };
  });
  return {
    tools,
    calls,
    reset: () => {
      calls.length = 0;
      used.clear();
    },
  };
}
