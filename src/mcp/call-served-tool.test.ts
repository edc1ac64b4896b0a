import { describe, expect, it } from 'vitest';
import type { ConfirmActionHook, DispatchContext } from '../core/internal.js';
import { prepareServedContext } from './call-served-tool.js';

describe('prepareServedContext', () => {
  it('keeps apart the members each call sets for itself, and keeps the session\'s context whole', () => {
    const confirm: ConfirmActionHook = () => Promise.resolve({ outcome: 'approve' });
    const onProgress = (): void => undefined;
    const retainWork = <T>(factory: () => Promise<T>): Promise<T> => factory();
    const base = {
      grantedTools: ['echo'],
      agent: 'a1',
      signal: AbortSignal.abort(),
      approval: { confirm, approvedActionDigests: ['d1'] },
      hostCallOptions: { onProgress, retainWork },
    } as DispatchContext;
    const served = prepareServedContext(base);
    expect(served.base).toBe(base);
    expect(served.shared).toEqual({ grantedTools: ['echo'], agent: 'a1' });
    expect(served.approval).toEqual({ approvedActionDigests: ['d1'] });
    expect(served.hostCallOptions).toEqual({ retainWork });
  });

  it('has nothing to keep apart in a context without approval or host call options', () => {
    const served = prepareServedContext({ grantedTools: [] });
    expect(served.shared).toEqual({ grantedTools: [] });
    expect(served.approval).toEqual({});
    expect(served.hostCallOptions).toEqual({});
  });
});
