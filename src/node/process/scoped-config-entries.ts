/** One key of a repository's configuration, as `git config --show-scope --null --get-regexp` gives it. */
export interface ScopedConfigEntry {
  /** Where git read it: `local`, `worktree`, `global`, `system`, `command`. */
  readonly scope: string;
  readonly name: string;
  /** Absent for a key given without a value (`[core] bare`). */
  readonly value: string | undefined;
}

/** The entries of that output: each is `scope\0name\nvalue\0`, with no `\nvalue` for a key given without one. */
export function scopedConfigEntries(stdout: string): ScopedConfigEntry[] {
  const fields = stdout.split('\0');
  const entries: ScopedConfigEntry[] = [];
  for (let index = 0; index + 1 < fields.length; index += 2) {
    const entry = fields[index + 1] as string;
    const newline = entry.indexOf('\n');
    entries.push({ scope: fields[index] as string, name: newline === -1 ? entry : entry.slice(0, newline), value: newline === -1 ? undefined : entry.slice(newline + 1) });
  }
  return entries;
}
