import type { RuleInForce } from './policy-snapshot-types.js';
import type { CompiledRule } from './rule-types.js';

/** A compiled rule as a person reads it: its text, where it came from, its decision, priority and band. */
export function describeRule(rule: CompiledRule): RuleInForce {
  return Object.freeze({
    id: rule.id,
    source: rule.source,
    decision: rule.decision,
    rule: rule.display,
    priority: rule.priority,
    band: rule.band === 1 ? ('managed' as const) : ('default' as const),
    reason: rule.reason,
  });
}
