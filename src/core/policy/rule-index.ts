import type { ArgumentPolicyInput } from './policy-types.js';
import type { CompiledRule } from './rule-types.js';
import { upstreamStandIns } from './upstream-stand-ins.js';

/** The rules that can decide a call, found without walking every rule each time. */
export interface RuleIndex {
  /** The rules that name this tool. */
  forTool(tool: string): readonly CompiledRule[];
  /**
   * The rules for this call: its tool's own, for an upstream tool the deny and ask rules of the built-ins its targets
   * stand for, and when it runs a file command (`runsFileCommand`) the rules marked `fileCommands`.
   */
  forCall(input: ArgumentPolicyInput, runsFileCommand?: boolean): readonly CompiledRule[];
}

/** A backstop on each cache: tool names come from callers, and a flood of new names must not grow memory. */
const MAX_CACHED = 4096;
const coversAnyTool = (): boolean => true;

/** Rules per tool name, and per tool name with its stand-ins, each computed once. */
export function createRuleIndex(rules: readonly CompiledRule[]): RuleIndex {
  const byTool = new Map<string, readonly CompiledRule[]>();
  const byStandIns = new Map<string, readonly CompiledRule[]>();
  const forTool = (tool: string): readonly CompiledRule[] => {
    let list = byTool.get(tool);
    if (list === undefined) {
      list = rules.filter((rule) => rule.tools(tool));
      if (byTool.size < MAX_CACHED) byTool.set(tool, list);
    }
    return list;
  };
  const forCall = (input: ArgumentPolicyInput, runsFileCommand = false): readonly CompiledRule[] => {
    const standIns = upstreamStandIns(input.tool, input.target);
    const own = forTool(input.tool.name);
    if (standIns.length === 0 && !runsFileCommand) return own;
    const key = `${input.tool.name}\u0000${standIns.join(',')}\u0000${runsFileCommand ? 'file command' : ''}`;
    let list = byStandIns.get(key);
    if (list === undefined) {
      // A stand-in's rule, and a rule marked for file commands, reach the call whatever tool name they were written
      // for: the tool test becomes "any". Both are denies and asks only.
      const reaches = (rule: CompiledRule): boolean => standIns.some((name) => rule.tools(name)) || (runsFileCommand && rule.fileCommands === true);
      const reaching = rules.filter((rule) => rule.decision !== 'allow' && !own.includes(rule) && reaches(rule));
      list = [...own, ...reaching.map((rule) => Object.freeze({ ...rule, tools: coversAnyTool }))];
      if (byStandIns.size < MAX_CACHED) byStandIns.set(key, list);
    }
    return list;
  };
  return { forTool, forCall };
}
