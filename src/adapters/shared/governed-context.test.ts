import { describe, expect, it } from 'vitest';
import { governedContext, isPreApproved } from './governed-context.js';

describe('governedContext', () => {
  it('always turns the approval regime on, keeping the application hook', () => {
    expect(governedContext({}, undefined, undefined).approval).toEqual({});
    const confirm = () => Promise.resolve({ outcome: 'reject' as const });
    expect(governedContext({ approval: { confirm } }, undefined, undefined).approval?.confirm).toBe(confirm);
  });

  it('adds the framework-approved digest to the application’s own, from a Set or an array', () => {
    expect(governedContext({ approval: { approvedActionDigests: new Set(['a']) } }, undefined, 'b').approval?.approvedActionDigests).toEqual(['a', 'b']);
    expect(governedContext({ approval: { approvedActionDigests: ['a'] } }, undefined, undefined).approval?.approvedActionDigests).toEqual(['a']);
    expect(governedContext({}, undefined, 'b').approval?.approvedActionDigests).toEqual(['b']);
  });

  it('aborts when either the run signal or the framework signal aborts', () => {
    const run = new AbortController();
    const call = new AbortController();
    const merged = governedContext({ signal: run.signal }, call.signal, undefined).signal;
    expect(merged?.aborted).toBe(false);
    call.abort(new Error('framework stop'));
    expect(merged?.aborted).toBe(true);
    const other = new AbortController();
    const second = governedContext({ signal: other.signal }, new AbortController().signal, undefined).signal;
    other.abort();
    expect(second?.aborted).toBe(true);
    expect(governedContext({ signal: run.signal }, undefined, undefined).signal).toBe(run.signal);
    expect(governedContext({}, undefined, undefined).signal).toBeUndefined();
  });

  it('knows a pre-approved digest, and nothing else', () => {
    expect(isPreApproved({ approval: { approvedActionDigests: ['x'] } }, 'x')).toBe(true);
    expect(isPreApproved({ approval: { approvedActionDigests: new Set(['x']) } }, 'x')).toBe(true);
    expect(isPreApproved({ approval: { approvedActionDigests: ['x'] } }, 'y')).toBe(false);
    expect(isPreApproved({ approval: { approvedActionDigests: ['x'] } }, undefined)).toBe(false);
    expect(isPreApproved({}, 'x')).toBe(false);
  });
});
