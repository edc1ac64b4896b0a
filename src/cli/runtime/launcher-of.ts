import { realpathSync } from 'node:fs';
import { basename, isAbsolute, join } from 'node:path';
import { upstreamPath } from '../../mcp/build-stdio-env.js';
import { UNHELD_LAUNCHERS, WRAPPERS } from './programs-that-read-the-workspace.js';

/*
 * What a stdio upstream's command is, by the program it names: the rules of
 * `upstream-launcher.ts` judge a launcher by what it is, never by how the
 * configuration spelt it.
 */

/** Launchers by the name of the file they are: npm's scripts, yarn's release files, Debian's `nodejs`, a versioned `python3.12`. */
const LAUNCHER_FILES: readonly (readonly [RegExp, string])[] = [
  [/^npx(?:-cli)?(?:\.c?js)?$/, 'npx'],
  [/^npm(?:-cli)?(?:\.c?js)?$/, 'npm'],
  [/^pnpm(?:\.c?js)?$/, 'pnpm'],
  [/^pnpx(?:\.c?js)?$/, 'pnpx'],
  [/^yarn(?:pkg)?(?:[-.][^\\/]*)?$/, 'yarn'],
  [/^corepack(?:\.c?js)?$/, 'corepack'],
  [/^(?:nodejs|node\d*)$/, 'node'],
  [/^(?:python|pypy)\d*(?:\.\d+)*t?(?:-dbg)?$/, 'python'],
  [/^(?:lua(?:jit)?|lua\d(?:\.\d)?)$/, 'lua'],
  [/^php(?:\d+(?:\.\d+)?)?(?:-cli)?$/, 'php'],
  [/^ruby\d*(?:\.\d+)*$/, 'ruby'],
  [/^perl(?:5(?:\.\d+)*)?$/, 'perl'],
  [/^ld(?:-linux(?:-[\w-]+)?)?\.so(?:\.\d+)*$/, 'ld.so'],
];

/**
 * What a command is: the launcher its file is, judged by the name it was
 * given and by the name of the file it resolves to (on the upstream's fixed
 * PATH, or on the PATH the configuration declares for it, which spawn looks
 * it up on; a link followed), each lower-cased and without a Windows extension.
 * `NPX`, a link named `my-npx` to npm's `npx-cli.js`, and `nodejs` are npx,
 * npx and node. Where the two differ and the file is a launcher, the file
 * decides.
 */
export function launcherOf(command: string, searchPath: readonly string[] = upstreamPath()): string {
  const given = launcherFromName(command);
  const file = resolvedFile(command, searchPath) ?? command;
  const real = LAUNCHER_PATHS.find(([path]) => path.test(file.replace(/\\/g, '/')))?.[1] ?? launcherFromName(file);
  return KNOWN_LAUNCHERS.has(real) ? real : given;
}

/** Launchers by their place in their package: files that start the launcher with names of their own (npm's `index.js`, yarn classic's `lib/cli.js`). */
const LAUNCHER_PATHS: readonly (readonly [RegExp, string])[] = [
  [/\/npm\/index\.js$/, 'npm'],
  [/\/yarn\/lib\/cli\.js$/, 'yarn'],
];

/** Every program toolgate has a rule for. */
export const KNOWN_LAUNCHERS = new Set(['npx', 'npm', 'pnpm', 'pnpx', 'yarn', 'corepack', 'node', 'python', 'deno', 'bun', 'bunx', 'dx', 'uv', 'env', 'tsx', 'lua', 'php', 'ruby', 'perl', 'elixir', 'iex', 'r', 'java', ...WRAPPERS, ...UNHELD_LAUNCHERS.keys()]);

function launcherFromName(command: string): string {
  const name = basename(command.replace(/\\/g, '/'))
    .toLowerCase()
    .replace(/\.(?:cmd|exe|bat|ps1)$/, '');
  return LAUNCHER_FILES.find(([file]) => file.test(name))?.[1] ?? name;
}

/** The real path of the file a command names: by its path, or looked up on `searchPath`; undefined when there is none. */
export function resolvedFile(command: string, searchPath: readonly string[]): string | undefined {
  const candidates = command.includes('/') || command.includes('\\') ? [command] : searchPath.map((folder) => join(folder, command));
  for (const candidate of candidates) {
    if (!isAbsolute(candidate)) continue;
    try {
      return realpathSync(candidate);
    } catch {
      // Not there: the next folder.
    }
  }
  return undefined;
}

/**
 * Where spawn looks a stdio upstream's command up: on the PATH its
 * configuration declares (which holds absolute folders only, or the server is
 * refused), else on the fixed system PATH toolgate gives it.
 */
export function searchPathOf(declaredEnv: Readonly<Record<string, string>>): readonly string[] {
  return declaredEnv.PATH === undefined ? upstreamPath() : declaredEnv.PATH.split(':');
}
