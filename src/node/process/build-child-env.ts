import { hostDenial } from '../errors/host-denial.js';

/**
 * Repo-local git configuration can name programs git runs (`core.fsmonitor`,
 * `core.pager`, `diff.external`, `core.sshCommand`, hooks). Command-line
 * configuration (`GIT_CONFIG_COUNT/KEY/VALUE`) outranks every config file,
 * so these values neutralise them for any git the child starts. Git cannot
 * unset a value this way, so `diff.external` points at the host's own shim,
 * which prints a plain unified diff. An empty `credential.helper` clears
 * every helper read before it, the URL-specific ones too.
 *
 * Submodule recursion is turned off: a git that recurses runs git inside the
 * submodule, with the submodule's own configuration. `diff.ignoreSubmodules
 * =dirty` keeps status and diff reporting a submodule's new commits without
 * starting `git status` inside it. (`.gitmodules` can still ask for more per
 * submodule, and `git add` checks submodules regardless: the host also makes
 * every submodule's own configuration inert, see `repositoryGitOverrides`.)
 */
export function gitHardeningEnv(externalDiff: string): Readonly<Record<string, string>> {
  const pairs: readonly (readonly [string, string])[] = [
    ['core.fsmonitor', 'false'],
    ['core.pager', 'cat'],
    ['diff.external', externalDiff],
    ['core.sshCommand', 'false'],
    ['core.hooksPath', '/dev/null'],
    ['core.editor', 'false'],
    ['sequence.editor', 'false'],
    ['protocol.ext.allow', 'never'],
    ['credential.helper', ''],
    ['submodule.recurse', 'false'],
    ['fetch.recurseSubmodules', 'false'],
    ['diff.ignoreSubmodules', 'dirty'],
    ['diff.submodule', 'short'],
    ['status.submoduleSummary', 'false'],
    // A template folder seeds every repository git makes (`init`, a submodule's clone) with its hooks and configuration.
    ['init.templateDir', ''],
  ];
  return Object.freeze(withGitConfig({ GIT_TERMINAL_PROMPT: '0', GIT_PAGER: 'cat', GIT_ASKPASS: '' }, pairs));
}

/**
 * `env` with command-line configuration pairs appended after any it already
 * carries (`GIT_CONFIG_COUNT` numbering continues): later pairs win, and
 * nothing a tool declares can reach these names.
 */
export function withGitConfig(env: Readonly<Record<string, string>>, pairs: readonly (readonly [string, string])[]): Record<string, string> {
  const extended: Record<string, string> = { ...env };
  let count = Number(env.GIT_CONFIG_COUNT ?? '0');
  for (const [key, value] of pairs) {
    extended[`GIT_CONFIG_KEY_${count}`] = key;
    extended[`GIT_CONFIG_VALUE_${count}`] = value;
    count += 1;
  }
  extended.GIT_CONFIG_COUNT = String(count);
  return extended;
}

/**
 * Names a tool may never set, whatever the allow list says: they would undo
 * the hardening or hijack loading. `GIT_EDITOR` and `GIT_SEQUENCE_EDITOR`
 * outrank `core.editor` and `sequence.editor`, `GIT_PROXY_COMMAND` and
 * `GIT_MAN_VIEWER` name programs, `GIT_TEMPLATE_DIR` seeds a new repository
 * (configuration included), `GIT_ALLOW_PROTOCOL` overrides
 * `protocol.ext.allow`.
 */
const RESERVED =
  /^(PATH|GIT_CONFIG.*|GIT_TERMINAL_PROMPT|GIT_PAGER|GIT_ASKPASS|GIT_EXEC_PATH|GIT_SSH.*|GIT_EXTERNAL_DIFF|GIT_EDITOR|GIT_SEQUENCE_EDITOR|GIT_PROXY_COMMAND|GIT_MAN_VIEWER|GIT_TEMPLATE_DIR|GIT_ALLOW_PROTOCOL|LD_.*|DYLD_.*|NODE_OPTIONS|BASH_ENV|ENV)$/;

export interface BuildChildEnvOptions {
  readonly systemPath: readonly string[];
  readonly home: string;
  /** Fixed values the host configuration sets. */
  readonly set: Readonly<Record<string, string>>;
  /** Names a tool may declare. */
  readonly allow: readonly string[];
  /** What the tool declared. */
  readonly declared: Readonly<Record<string, string>>;
  readonly tool: string | undefined;
  /** From `gitHardeningEnv`: applied last. */
  readonly gitHardening: Readonly<Record<string, string>>;
}

/**
 * The child's whole environment: a platform-minimal base, the host's fixed
 * values, the declared variables that pass the allow list, then the git
 * hardening last so nothing overrides it. Never the parent's environment.
 */
export function buildChildEnv(options: BuildChildEnvOptions): Record<string, string> {
  const env: Record<string, string> = {
    PATH: options.systemPath.join(':'),
    HOME: options.home,
    LANG: 'C.UTF-8',
    TERM: 'dumb',
  };
  for (const [name, value] of Object.entries(options.set)) if (!RESERVED.test(name)) env[name] = value;
  for (const [name, value] of Object.entries(options.declared)) {
    if (RESERVED.test(name) || !options.allow.includes(name) || name.includes('=') || name.includes('\0') || value.includes('\0')) {
      throw hostDenial(options.tool, 'env_not_allowed');
    }
    env[name] = value;
  }
  return Object.assign(env, options.gitHardening);
}
