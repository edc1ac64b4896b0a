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

/**
 * The priority every ask of an imported file is held at or below: the lowest
 * of the denies it must not outrank (the operator's, and those of the other
 * imported files; on a tie a deny beats an ask), or none when there is no
 * such deny. An ask counts as narrowing only against an allow: above a deny
 * it turns a call refused into a card a person may approve. A Gemini CLI
 * workspace rule sits at 3000 and more, so an unpinned file's `ask_user`
 * outranked the configuration's deny at 0, and a Claude Code file's deny.
 */
export function importedAskCeiling(denying: readonly PolicyRule[]): number | undefined {
  const denies = denying.filter((rule) => rule.decision === 'deny').map((rule) => rule.priority ?? 0);
  return denies.length === 0 ? undefined : Math.min(...denies);
}

/**
 * An imported ask never outranks a deny the operator or another imported file
 * wrote: it is lowered to `ceiling`, where it still beats every operator
 * allow at or below it. Where an operator allow ranks above that ceiling,
 * such an ask may now lose to that allow (it asked before): said, never
 * silently.
 */
export function rankImportedAsks(imported: readonly PolicyRule[], ceiling: number | undefined, operatorRules: readonly PolicyRule[], file: string, warnings: string[]): PolicyRule[] {
  if (ceiling === undefined) return [...imported];
  return imported.map((rule) => {
    const priority = rule.priority ?? 0;
    if (rule.decision !== 'ask' || priority <= ceiling) return rule;
    if (operatorRules.some((other) => other.decision === 'allow' && (other.priority ?? 0) > ceiling)) {
      warnings.push(`${file}: ask rule ${rule.id ?? ''} lowered to priority ${String(ceiling)}, under the deny rules of the configuration and of the other imported files; an allow of the configuration ranked above that now wins over it where both match`);
    }
    return { ...rule, priority: ceiling };
  });
}

/**
 * A file the operator names under `policy.imports` usually lives in the
 * repository (`.claude/settings.json`), which anyone who can push to it
 * writes, and changes with every pull. So its allows count only while its
 * bytes are the ones the operator pinned (`sha256`); otherwise only its deny
 * and ask rules, which can only narrow, are kept, and a warning says how many
 * allows were left out and the digest to pin once the file has been read.
 */
export function pinnedAllows(imported: readonly PolicyRule[], pinned: { readonly sha256?: string | undefined; readonly position: number }, sha256: string, file: string, warnings: string[]): PolicyRule[] {
  if (pinned.sha256 === sha256) return [...imported];
  const narrowing = imported.filter((rule) => rule.decision !== 'allow');
  const ignored = imported.length - narrowing.length;
  if (ignored > 0) {
    const why = pinned.sha256 === undefined ? 'the configuration does not pin its content' : 'its content is not the one the configuration pins';
    warnings.push(`${file}: its ${String(ignored)} allow rule(s) are ignored: ${why} (a repository can ship or change the file). Read it, then set policy.imports[${String(pinned.position)}].sha256 to ${sha256} to trust them.`);
  }
  return narrowing;
}
