import { describe, expect, it } from 'vitest';
import { socketFilterProgram } from './socket-filter.js';

/**
 * What the kernel would answer for one call: the program run over a
 * `struct seccomp_data` (number, table, then the arguments as 64-bit
 * little-endian values), with the few classic-BPF instructions it may use.
 * Anything else fails the test, so the program cannot grow an instruction
 * nobody checked.
 */
function judge(program: Uint8Array, arch: number, nr: number, args: readonly number[] = []): string {
  const data = new DataView(new ArrayBuffer(64));
  data.setUint32(0, nr >>> 0, true);
  data.setUint32(4, arch, true);
  args.forEach((value, index) => data.setBigUint64(16 + index * 8, BigInt(value), true));
  const code = new DataView(program.buffer, program.byteOffset, program.byteLength);
  let accumulator = 0;
  for (let pc = 0; pc < program.length / 8; pc += 1) {
    const [op, jt, jf, k] = [code.getUint16(pc * 8, true), code.getUint8(pc * 8 + 2), code.getUint8(pc * 8 + 3), code.getUint32(pc * 8 + 4, true)];
    if (op === 0x20) accumulator = data.getUint32(k, true);
    else if (op === 0x54) accumulator = (accumulator & k) >>> 0;
    else if (op === 0x15) pc += accumulator === k ? jt : jf;
    else if (op === 0x35) pc += accumulator >= k ? jt : jf;
    else if (op === 0x06) return verdict(k);
    else throw new Error(`unexpected instruction ${op.toString(16)}`);
  }
  throw new Error('the program ran off its end');
}

function verdict(k: number): string {
  if (k === 0x7fff0000) return 'allow';
  if (k === 0x80000000) return 'kill';
  if ((k & 0xffff0000) === 0x00050000) return `errno ${String(k & 0xffff)}`;
  return `unknown ${k.toString(16)}`;
}

const X86_64 = 0xc000003e;
const AARCH64 = 0xc00000b7;
const I386 = 0x40000003;
const ARM = 0x40000028;
const program = socketFilterProgram('x64') as Uint8Array;

describe('the socket filter', () => {
  it('refuses a Unix socket of every type and flag, on x86_64 and aarch64, and every family but inet, inet6 and netlink', () => {
    for (const [arch, socket] of [[X86_64, 41], [AARCH64, 198]] as const) {
      for (const type of [1, 2, 5, 1 | 0x80000, 2 | 0x800]) expect(judge(program, arch, socket, [1, type, 0])).toBe('errno 13');
      // The kernel reads the domain as an int: bits above it change nothing, and must not unlock it.
      expect(judge(program, arch, socket, [0x1_0000_0001, 1, 0])).toBe('errno 13');
      for (const family of [2, 10, 16]) expect(judge(program, arch, socket, [family, 1, 0])).toBe('allow');
      // Every other family is refused: vsock (40) reaches a virtual machine's host, whatever the network namespace.
      for (const family of [0, 3, 17, 38, 40, 0x1_0000_0028]) expect(judge(program, arch, socket, [family, 1, 0])).toBe('errno 13');
    }
  });

  it('keeps stream and seqpacket pairs, with their flags, and refuses datagram ones (a datagram socket may send anywhere)', () => {
    for (const [arch, socketpair] of [[X86_64, 53], [AARCH64, 199]] as const) {
      for (const type of [1, 5, 1 | 0x80000, 5 | 0x800 | 0x80000]) expect(judge(program, arch, socketpair, [1, type, 0])).toBe('allow');
      // SOCK_RAW is a datagram pair to the kernel.
      for (const type of [2, 3, 2 | 0x80000]) expect(judge(program, arch, socketpair, [1, type, 0])).toBe('errno 13');
    }
  });

  it('answers io_uring as a kernel without it, ENOSYS, and lets every other call through', () => {
    for (const arch of [X86_64, AARCH64]) {
      for (const call of [425, 426, 427]) expect(judge(program, arch, call)).toBe('errno 38');
      for (const call of [0, 1, 42, 59, 203, 435]) expect(judge(program, arch, call)).toBe('allow');
    }
  });

  it('kills a call through a table it does not know, and refuses the x32 range', () => {
    // int 0x80 on x86_64: i386 has socketcall (102) and socket (359), whose arguments the filter cannot read.
    for (const call of [102, 359, 1, 252]) expect(judge(program, I386, call, [1, 1, 0])).toBe('kill');
    expect(judge(program, ARM, 281, [1, 1, 0])).toBe('kill');
    for (const call of [0x40000000 + 41, 0x40000000 + 53, 0x40000000 + 425, 0xffffffff]) expect(judge(program, X86_64, call, [1, 1, 0])).toBe('errno 38');
  });

  it('is the same program on both architectures it knows, and none elsewhere (bwrap then runs without it)', () => {
    expect(socketFilterProgram('arm64')).toEqual(program);
    expect(program.length % 8).toBe(0);
    for (const arch of ['riscv64', 'ppc64', 's390x', 'ia32', 'arm']) expect(socketFilterProgram(arch)).toBeUndefined();
  });
});
