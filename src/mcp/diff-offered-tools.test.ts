import { describe, expect, it } from 'vitest';
import type { AnyToolDefinition } from '../core/internal.js';
import { diffOfferedTools } from './diff-offered-tools.js';

const definition = (name: string) => ({ name }) as AnyToolDefinition;

describe('diffOfferedTools', () => {
  it('reports no change for the very same definitions', () => {
    const same = [definition('a'), definition('b')];
    expect(diffOfferedTools(same, [...same])).toEqual({ type: 'unchanged' });
  });

  it('counts a name whose definition is another object as added, and a name that left as removed', () => {
    const kept = definition('kept');
    expect(diffOfferedTools([kept, definition('changed'), definition('gone')], [kept, definition('changed'), definition('new')])).toEqual({ type: 'changed', added: ['changed', 'new'], removed: ['gone'] });
  });
});
