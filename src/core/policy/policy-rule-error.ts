import { ConfigurationError } from '../errors/tool-errors.js';

export type PolicyRuleProblem = 'invalid_rule' | 'rule_test_failed' | 'invalid_pattern' | 'unknown_tool';

/** A rule that cannot load: malformed, or failing its own examples. Nothing loads with it. */
export class PolicyRuleError extends ConfigurationError {
  readonly ruleId: string;
  readonly problem: PolicyRuleProblem;
  constructor(ruleId: string, problem: PolicyRuleProblem, text: string) {
    super(`rules[${ruleId}]`, text);
    this.ruleId = ruleId;
    this.problem = problem;
  }
}
