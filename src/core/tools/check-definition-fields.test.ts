import { describe, expect, it } from 'vitest';
import { checkDefinitionFields } from './check-definition-fields.js';

const valid = { name: 'lookup', description: 'Look up.', input: { type: 'object' }, dispatch: () => 'ok' };
const check = (extra: Record<string, unknown>) => checkDefinitionFields({ ...valid, ...extra });

describe('checkDefinitionFields', () => {
  it('accepts a minimal definition and returns its name', () => {
    expect(check({})).toEqual({ type: 'valid', name: 'lookup' });
  });

  it.each([
    [{ name: 7 }, '?', 'name'],
    [{ name: 'Lookup' }, 'Lookup', 'name'],
    [{ version: '^1.0.0' }, 'lookup', 'version'],
    [{ description: '  ' }, 'lookup', 'description'],
    [{ dispatch: 'run' }, 'lookup', 'dispatch'],
    [{ timeoutMs: 0 }, 'lookup', 'timeoutMs'],
    [{ permissions: [''] }, 'lookup', 'permissions'],
    [{ configOnly: 'cwd' }, 'lookup', 'configOnly'],
    [{ effect: 'delete' }, 'lookup', 'effect'],
    [{ policy: { egress: 'smtp' } }, 'lookup', 'policy.egress'],
    [{ presentCall: 'text' }, 'lookup', 'presentCall'],
    [{ input: null }, 'lookup', 'input'],
    [{ output: { '~standard': {} } }, 'lookup', 'output'],
  ])('refuses %j, naming the field', (extra, name, field) => {
    expect(check(extra)).toMatchObject({ type: 'invalid', name, field });
  });
});
