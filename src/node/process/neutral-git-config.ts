/**
 * The configuration a repository may hold and still run nothing of its own
 * when git enters it: what `git init`, `git clone`, `git remote`, `git
 * branch` and `git submodule` write, and a few settings of the same kind.
 * Keys are as `git config --list` prints them: section and name in lower
 * case, a subsection (a remote's or a branch's name) as written.
 *
 * An allow-list, not a list of dangers: git reads programs from many keys
 * (`core.fsmonitor`, `core.hooksPath`, `core.sshCommand`, `core.pager`,
 * `diff.external`, filter, merge and diff drivers, `include.path`,
 * `submodule.<name>.update = !command`, …) and adds more over time, so a
 * key not named here counts as one that may.
 */
const NEUTRAL_KEYS = new Set([
  'core.repositoryformatversion',
  'core.filemode',
  'core.bare',
  'core.logallrefupdates',
  'core.ignorecase',
  'core.precomposeunicode',
  'core.symlinks',
  'core.autocrlf',
  'core.eol',
  'core.safecrlf',
  'core.sparsecheckout',
  'core.sparsecheckoutcone',
  'core.quotepath',
  'core.checkstat',
  'core.trustctime',
  'core.untrackedcache',
  'core.abbrev',
  'core.compression',
  'extensions.objectformat',
  'extensions.worktreeconfig',
  'extensions.partialclone',
  'extensions.preciousobjects',
  'extensions.refstorage',
  'extensions.noop',
  'init.defaultbranch',
  // Which submodules count as active, as a pathspec: `git clone --recurse-submodules` writes it.
  'submodule.active',
  'user.name',
  'user.email',
  'fetch.prune',
  'fetch.prunetags',
  'pull.rebase',
  'pull.ff',
  'push.default',
  'push.autosetupremote',
  'gc.auto',
  'lfs.repositoryformatversion',
]);

/** Per remote, branch or submodule: `remote.<name>.url` and the like. */
const NEUTRAL_NAMED_KEYS: ReadonlyMap<string, ReadonlySet<string>> = new Map([
  ['remote', new Set(['url', 'pushurl', 'fetch', 'push', 'tagopt', 'mirror', 'prune', 'prunetags', 'promisor', 'partialclonefilter', 'skipdefaultupdate', 'skipfetchall'])],
  ['branch', new Set(['remote', 'merge', 'rebase', 'pushremote', 'description'])],
  ['submodule', new Set(['url', 'active', 'branch', 'ignore', 'fetchrecursesubmodules', 'shallow', 'update'])],
]);

/** `submodule.<name>.update` may also be `!command`, which `git submodule update` runs. */
const NEUTRAL_SUBMODULE_UPDATES = new Set(['checkout', 'rebase', 'merge', 'none']);

/** One setting as git read it: a key, and its value (undefined for a bare boolean, `[core] bare`). */
export interface ConfigEntry {
  readonly key: string;
  readonly value: string | undefined;
}

/**
 * The entries of `git config --list --null` output: each ends with a NUL,
 * its key and value parted by the first newline (a key without one has no
 * value). Keys hold no newline; values may.
 */
export function parseConfigList(output: string): ConfigEntry[] {
  const entries: ConfigEntry[] = [];
  for (const entry of output.split('\0')) {
    if (entry === '') continue;
    const newline = entry.indexOf('\n');
    entries.push(newline === -1 ? { key: entry, value: undefined } : { key: entry.slice(0, newline), value: entry.slice(newline + 1) });
  }
  return entries;
}

/** Whether git entering a repository with this setting runs nothing it names. */
export function isNeutralSetting(entry: ConfigEntry): boolean {
  const key = entry.key;
  if (NEUTRAL_KEYS.has(key)) return true;
  const first = key.indexOf('.');
  const last = key.lastIndexOf('.');
  // A subsection may hold dots (`remote.my.fork.url`); without one, `remote.url` is no remote's.
  if (first === -1 || first === last) return false;
  const section = key.slice(0, first);
  const name = key.slice(last + 1);
  if (NEUTRAL_NAMED_KEYS.get(section)?.has(name) !== true) return false;
  return section !== 'submodule' || name !== 'update' || NEUTRAL_SUBMODULE_UPDATES.has(entry.value ?? '');
}
