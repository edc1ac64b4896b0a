/**
 * The seccomp program bwrap installs in every sandboxed command, as classic
 * BPF: no Unix socket can be made, so no host service listening on one is
 * reachable. Every namespace is unshared, which cuts TCP and abstract
 * sockets, but a socket on the filesystem answers `connect()` wherever its
 * path is visible, read-only or not: the session bus (whose systemd starts
 * units outside any sandbox when asked), docker and podman (a container that
 * mounts the host), the ssh and gpg agents (signatures with the user's
 * keys). Judging the call, not the path, covers every socket wherever it
 * lies, including those no mask names.
 *
 * - `socket` makes only what the sandbox's own network namespace confines:
 *   `AF_INET`, `AF_INET6` (loopback servers still work) and `AF_NETLINK`
 *   (interface lookups). Any other family fails with `EACCES`: `AF_UNIX`,
 *   whatever the type, and `AF_VSOCK`, which no network namespace holds (in
 *   a virtual machine it reaches the host's side: WSL 2, Firecracker). A
 *   list of what may be made, so a family nobody thought of is refused.
 * - `socketpair` stays for stream and seqpacket pairs (pipelines, node and
 *   python use them for their children): both ends are connected, and the
 *   kernel refuses to connect either elsewhere. A datagram pair is refused
 *   (`EACCES`): a datagram socket may `sendto` or `connect` any datagram
 *   socket on the filesystem.
 * - `io_uring_setup`, `io_uring_enter` and `io_uring_register` fail with
 *   `ENOSYS` (what a kernel without io_uring answers, so programs fall back):
 *   a ring's operations, its socket and connect included, never pass through
 *   seccomp.
 * - Only the x86_64 and aarch64 system-call tables are known: a call through
 *   any other (`int 0x80` on x86_64, whose i386 table has `socketcall`; a
 *   32-bit arm program on aarch64) kills the process, and one in the x32
 *   range (bit 30 set, and any number above it) fails with `ENOSYS`.
 *
 * The first argument is read as its low 32 bits: the kernel takes the
 * domain as an `int`, so the high half cannot change what it means.
 */

const AUDIT_ARCH_X86_64 = 0xc000003e;
const AUDIT_ARCH_AARCH64 = 0xc00000b7;
const X32_SYSCALL_BIT = 0x40000000;
const AF_INET = 2;
const AF_INET6 = 10;
const AF_NETLINK = 16;
const SOCK_STREAM = 1;
const SOCK_SEQPACKET = 5;
/** The type's low bits; the rest are `SOCK_NONBLOCK` and `SOCK_CLOEXEC`. */
const SOCK_TYPE_MASK = 0xf;
const EACCES = 13;
const ENOSYS = 38;

/** The calls judged, by table: x86_64's own numbers, and the generic table aarch64 uses. */
const TABLES = [
  { arch: AUDIT_ARCH_X86_64, socket: 41, socketpair: 53, x32: true },
  { arch: AUDIT_ARCH_AARCH64, socket: 198, socketpair: 199, x32: false },
] as const;
/** `io_uring_setup`, `io_uring_enter`, `io_uring_register`: the same in both tables. */
const IO_URING = [425, 426, 427] as const;

const SECCOMP_RET_KILL_PROCESS = 0x80000000;
const SECCOMP_RET_ERRNO = 0x00050000;
const SECCOMP_RET_ALLOW = 0x7fff0000;

/** Offsets in `struct seccomp_data`: the call's number, its table, and the low halves of its first two arguments (little-endian). */
const NR = 0;
const ARCH = 4;
const ARG0 = 16;
const ARG1 = 24;

const BPF_LD_W_ABS = 0x20;
const BPF_JEQ_K = 0x15;
const BPF_JGE_K = 0x35;
const BPF_AND_K = 0x54;
const BPF_RET_K = 0x06;

/** One instruction, its jumps named by label until `assemble` turns them into offsets. */
type Instruction = { readonly code: number; readonly k: number; readonly yes?: string; readonly no?: string; readonly label?: string };

const load = (offset: number): Instruction => ({ code: BPF_LD_W_ABS, k: offset });
const ifEqual = (k: number, yes: string, no?: string): Instruction => ({ code: BPF_JEQ_K, k, yes, ...(no === undefined ? {} : { no }) });
const answer = (k: number, label?: string): Instruction => ({ code: BPF_RET_K, k, ...(label === undefined ? {} : { label }) });

/**
 * The program for a host of Node architecture `arch`, as bwrap reads it
 * (`struct sock_filter` entries, 8 bytes each), or `undefined` where its
 * table is not known: there bwrap runs without it.
 */
export function socketFilterProgram(arch: string): Uint8Array | undefined {
  if (arch !== 'x64' && arch !== 'arm64') return undefined;
  return assemble(socketFilter());
}

function socketFilter(): Instruction[] {
  const program: Instruction[] = [load(ARCH)];
  for (const table of TABLES) program.push(ifEqual(table.arch, `table-${String(table.arch)}`));
  program.push(answer(SECCOMP_RET_KILL_PROCESS));
  for (const table of TABLES) {
    program.push({ ...load(NR), label: `table-${String(table.arch)}` });
    if (table.x32) program.push({ code: BPF_JGE_K, k: X32_SYSCALL_BIT, yes: 'enosys' });
    program.push(ifEqual(table.socket, 'socket'), ifEqual(table.socketpair, 'socketpair'));
    for (const call of IO_URING) program.push(ifEqual(call, 'enosys'));
    program.push(answer(SECCOMP_RET_ALLOW));
  }
  program.push({ ...load(ARG0), label: 'socket' }, ifEqual(AF_INET, 'allow'), ifEqual(AF_INET6, 'allow'), ifEqual(AF_NETLINK, 'allow', 'eacces'));
  program.push({ ...load(ARG1), label: 'socketpair' }, { code: BPF_AND_K, k: SOCK_TYPE_MASK }, ifEqual(SOCK_STREAM, 'allow'), ifEqual(SOCK_SEQPACKET, 'allow', 'eacces'));
  program.push(answer(SECCOMP_RET_ALLOW, 'allow'), answer(SECCOMP_RET_ERRNO | EACCES, 'eacces'), answer(SECCOMP_RET_ERRNO | ENOSYS, 'enosys'));
  return program;
}

/** Encode `program`, each jump as the number of instructions it skips (forward only, as BPF requires). */
function assemble(program: readonly Instruction[]): Uint8Array {
  const at = new Map(program.flatMap((instruction, index) => (instruction.label === undefined ? [] : [[instruction.label, index] as const])));
  const bytes = new Uint8Array(program.length * 8);
  const view = new DataView(bytes.buffer);
  program.forEach((instruction, index) => {
    const skip = (label: string | undefined): number => {
      if (label === undefined) return 0;
      const target = at.get(label);
      if (target === undefined || target <= index || target - index - 1 > 0xff) throw new Error(`seccomp program: no forward jump to ${label}`);
      return target - index - 1;
    };
    view.setUint16(index * 8, instruction.code, true);
    view.setUint8(index * 8 + 2, skip(instruction.yes));
    view.setUint8(index * 8 + 3, skip(instruction.no));
    view.setUint32(index * 8 + 4, instruction.k, true);
  });
  return bytes;
}
