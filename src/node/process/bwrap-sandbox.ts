import { spawn } from 'node:child_process';
import type { FsScope } from '../node-host-types.js';
import { findProgram } from './find-program.js';

/**
 * The bwrap binary when it is installed *and* can create its namespaces
 * here (containers often forbid user namespaces): probed once by running
 * `true` inside the same flags real commands get.
 */
export async function detectBwrap(directories: readonly string[]): Promise<string | undefined> {
  const bwrap = findProgram('bwrap', directories);
  if (bwrap === undefined) return undefined;
  const probe = await new Promise<boolean>((resolve) => {
    const child = spawn(bwrap, ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp', '--unshare-all', '--die-with-parent', '--new-session', '--clearenv', '--', '/bin/true'], {
      stdio: 'ignore',
      shell: false,
      env: {},
    });
    child.on('error', () => resolve(false));
    child.on('close', (code) => resolve(code === 0));
  });
  return probe ? bwrap : undefined;
}

export interface BwrapArgsOptions {
  readonly workspace: string;
  readonly scope: FsScope;
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  /** Host paths hidden inside the sandbox (the secret store, spills, media). */
  readonly hidden: readonly { readonly path: string; readonly directory: boolean }[];
  /** Host directories the child may read (the git diff shim), bound after the masks. */
  readonly readOnly: readonly string[];
  readonly file: string;
  readonly args: readonly string[];
}

/**
 * bwrap arguments: every namespace unshared (no network), the root read-only,
 * a private /tmp, the workspace bound read-write only in a writing tier, host
 * stores masked, the environment cleared and rebuilt from `env` alone.
 */
export function buildBwrapArgs(options: BwrapArgsOptions): string[] {
  const args = ['--die-with-parent', '--new-session', '--unshare-all', '--clearenv'];
  args.push(options.scope === 'full' ? '--bind' : '--ro-bind', '/', '/');
  args.push('--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp');
  if (options.scope !== 'full') args.push(options.scope === 'workspace-write' ? '--bind' : '--ro-bind', options.workspace, options.workspace);
  for (const hidden of options.hidden) {
    if (hidden.directory) args.push('--tmpfs', hidden.path);
    else args.push('--ro-bind-try', '/dev/null', hidden.path);
  }
  for (const directory of options.readOnly) args.push('--ro-bind', directory, directory);
  for (const [name, value] of Object.entries(options.env)) args.push('--setenv', name, value);
  args.push('--chdir', options.cwd, '--', options.file, ...options.args);
  return args;
}
