import { spawnSync } from 'node:child_process';
import { describe, expect, it, vi } from 'vitest';
import { ConfigurationError } from '../../core/internal.js';
import { isProcessAlive } from './is-process-alive.js';

describe('isProcessAlive', () => {
  it('finds this process', () => {
    expect(isProcessAlive(process.pid)).toBe(true);
  });

  it('a process that has exited and been reaped is gone', () => {
    const { pid } = spawnSync(process.execPath, ['-e', '']);
    expect(pid).toBeGreaterThan(0);
    expect(isProcessAlive(pid)).toBe(false);
  });

  it('a process of another user (EPERM) counts as alive; any other refusal means gone', () => {
    const kill = vi.spyOn(process, 'kill');
    try {
      kill.mockImplementation(() => {
        throw Object.assign(new Error('kill EPERM'), { code: 'EPERM' });
      });
      expect(isProcessAlive(4242)).toBe(true);
      kill.mockImplementation(() => {
        throw Object.assign(new Error('kill ESRCH'), { code: 'ESRCH' });
      });
      expect(isProcessAlive(4242)).toBe(false);
      expect(kill).toHaveBeenCalledWith(4242, 0);
    } finally {
      kill.mockRestore();
    }
  });

  it.each([0, -1, -process.pid, 1.5, Number.NaN, Number.MAX_SAFE_INTEGER + 1])('refuses %s, which would address a process group or no process', (pid) => {
    expect(() => isProcessAlive(pid)).toThrow(ConfigurationError);
  });
});
