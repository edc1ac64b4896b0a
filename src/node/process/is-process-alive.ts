import { ConfigurationError } from '../../core/internal.js';

/**
 * Whether a process with this id runs on this host, asked with signal 0
 * (nothing is delivered). EPERM means it exists under another user, so it
 * counts as alive: only "no such process" means gone, and a holder that
 * might still run is never taken for dead. A pid of 0 or below would address
 * a process group, not a process, and is refused.
 */
export function isProcessAlive(pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) throw new ConfigurationError('pid', 'must be a positive integer');
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
