import { describe, expect, it } from 'vitest';
import type { ResolvedConfig } from '../config/config-types.js';
import { registryLimits } from './registry-limits.js';

const withLimits = (limits: ResolvedConfig['limits']): ResolvedConfig => ({ limits }) as ResolvedConfig;

describe('registryLimits', () => {
  it('passes the input, output and content ceilings the configuration sets', () => {
    expect(registryLimits(withLimits({ maxInputBytes: 100, maxBytes: 200, maxLines: 3 }))).toEqual({ maxInputBytes: 100, content: { maxBytes: 200, maxLines: 3 } });
    expect(registryLimits(withLimits({ maxOutputBytes: 4096 }))).toEqual({ maxOutputBytes: 4096, content: {} });
  });

  it('leaves an unset ceiling out, so the registry keeps its default', () => {
    expect(registryLimits(withLimits({}))).toEqual({ content: {} });
    expect(registryLimits(withLimits({ maxLines: 7 }))).toEqual({ content: { maxLines: 7 } });
  });
});
