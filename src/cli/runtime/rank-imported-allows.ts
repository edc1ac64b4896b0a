import type { PolicyRule } from '../../core/internal.js';

/**
 * The priority every allow of an imported file is held at or below: under
 * every rule the operator wrote (the configuration's rules and remembered
 * approvals), whatever priority they were given.
 */
export function importedAllowCeiling(operatorRules: readonly PolicyRule[]): number {
  return Math.min(0, ...operatorRules.map((rule) => rule.priority ?? 0)) - 1;
}

/**
 * An imported file never outranks the operator. A Gemini CLI priority means
 * something only among Gemini CLI's own rules (`tier × 1000 + priority` puts a
 * workspace file's allow at up to 3999, where the configuration's rules sit at
 * 0), so an imported allow is lowered to `ceiling`: a deny or ask the
 * operator wrote always stands. The file's own deny and ask rules keep their
 * place (they can only narrow), so an allow the file ranked above one of them
 * now ranks below it: stricter, and said.
 */
export function rankImportedAllows(imported: readonly PolicyRule[], ceiling: number, file: string, warnings: string[]): PolicyRule[] {
  const narrowing = imported.filter((rule) => rule.decision !== 'allow').map((rule) => rule.priority ?? 0);
  return imported.map((rule) => {
    const priority = rule.priority ?? 0;
    if (rule.decision !== 'allow' || priority <= ceiling) return rule;
    if (narrowing.some((other) => other < priority)) {
      warnings.push(`${file}: allow rule ${rule.id ?? ''} ranked above a deny or ask rule of the same file; an imported allow ranks below every other rule, so where both match it no longer applies (stricter)`);
    }
    return { ...rule, priority: ceiling };
  });
}
