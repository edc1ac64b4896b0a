import { readFileSync } from 'node:fs';

/** Clock ticks per second of `/proc/<pid>/stat` (USER_HZ, 100 on Linux's every architecture). */
const TICKS_PER_SECOND = 100;

/**
 * The CPU time, user and system, a running process has spent so far, in
 * milliseconds. Unlike wall time it does not grow when other processes share
 * the cores, so a test can bound what a process itself did.
 */
export function processCpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name, which is in parentheses and may hold spaces: state is field 3, utime 14, stime 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
}
