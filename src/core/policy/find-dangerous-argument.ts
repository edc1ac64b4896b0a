import { EXEC_FORMS } from './exec-forms.js';
import { lookupProgram } from './lookup-program.js';
import { holdsForm } from './option-forms.js';

/**
 * An argument form that makes an otherwise ordinary program execute code or
 * write where it is told (`git -c core.pager=sh …`, `find -exec`, `rg --pre`,
 * `sed e`, `awk 'BEGIN{system(…)}'`, `tar --to-command=…`, `python -c`): the
 * table is `EXEC_FORMS`. The program is identified by `lookupProgram`.
 */
export interface DangerousArgument {
  readonly program: string;
  /** A short, fixed description of the form (never the argument's value). */
  readonly form: string;
}

export function findDangerousArgument(argv: readonly string[]): DangerousArgument | undefined {
  const found = lookupProgram(EXEC_FORMS, argv[0] ?? '');
  if (found === undefined) return undefined;
  const args = argv.slice(1);
  const entry = found.entry;
  const form = typeof entry === 'function' ? entry(args) : holdsForm(args, entry) ? entry.form : undefined;
  return form === undefined ? undefined : { program: found.name, form };
}
