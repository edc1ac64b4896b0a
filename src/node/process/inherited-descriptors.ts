import { spawn, type ChildProcess, type SpawnOptions, type StdioNull, type StdioPipe } from 'node:child_process';
import { closeSync, openSync, readdirSync, readFileSync } from 'node:fs';

/** `O_CLOEXEC` as `/proc/self/fdinfo` shows it (octal flags). */
const O_CLOEXEC = 0o2000000;

/**
 * The descriptors above stderr that this process holds without
 * close-on-exec: every child it spawns would hold them too, and bwrap passes
 * them on to the command. Node opens all of its own with close-on-exec, so
 * these came from whoever started the host (a shell, a harness, an MCP
 * client that leaked one) or from the embedder: a Unix socket among them
 * would give a sandboxed command a connection to some service outside,
 * with no socket of its own to make. Read at each spawn, since any of them
 * may have been opened or closed since. Empty where there is no
 * `/proc/self/fdinfo` (not Linux): there is no sandbox there either.
 */
function inheritedDescriptors(): number[] {
  let names: string[];
  try {
    names = readdirSync('/proc/self/fdinfo');
  } catch {
    return [];
  }
  const inherited: number[] = [];
  for (const name of names) {
    const fd = Number(name);
    if (!Number.isInteger(fd) || fd <= 2) continue;
    let info: string;
    try {
      info = readFileSync(`/proc/self/fdinfo/${name}`, 'utf8');
    } catch {
      // Closed in between (the directory's own descriptor is one): nothing left to inherit.
      continue;
    }
    const flags = /^flags:\s*([0-7]+)$/m.exec(info)?.[1];
    // Flags it cannot read count as inherited: covering a descriptor the child would not have had costs nothing.
    if (flags === undefined || (Number.parseInt(flags, 8) & O_CLOEXEC) === 0) inherited.push(fd);
  }
  return inherited;
}

/**
 * `spawn`, with every descriptor the host inherited (`inheritedDescriptors`)
 * replaced in the child by `/dev/null`: Node cannot close a descriptor in a
 * child, but it can put another one in its place. `stdio` names the child's
 * first descriptors as usual (stdin, stdout, stderr, bwrap's filter); an
 * inherited descriptor among those numbers is already replaced by them.
 */
export function spawnCovered(file: string, args: readonly string[], options: SpawnOptions & { readonly stdio: readonly (StdioPipe | StdioNull)[] }): ChildProcess {
  const covered = inheritedDescriptors().filter((fd) => fd >= options.stdio.length);
  if (covered.length === 0) return spawn(file, args, options);
  const devNull = openSync('/dev/null', 'r');
  try {
    const stdio: (StdioPipe | StdioNull | number)[] = [...options.stdio];
    for (let fd = stdio.length; fd <= Math.max(...covered); fd += 1) stdio.push(covered.includes(fd) ? devNull : 'ignore');
    return spawn(file, args, { ...options, stdio });
  } finally {
    // The child has its copies once spawn returns (it forks and execs before it does).
    closeSync(devNull);
  }
}
