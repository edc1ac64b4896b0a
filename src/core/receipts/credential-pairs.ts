import { namesCredential } from '../policy/credential-spans.js';

/**
 * The members that name the entry of a name/value pair, compared without
 * case: `{ name: 'Authorization', value }` (HAR, Postman, Kubernetes'
 * `env`), AWS's `{ Name, Value }` and `{ Key, Value }`, CloudFormation's
 * `{ ParameterKey, ParameterValue }`.
 */
const PAIR_NAMES = new Set(['name', 'key', 'header', 'field', 'variable', 'parameterkey', 'parametername']);
/** The members that hold a pair's value. */
export const PAIR_VALUES: ReadonlySet<string> = new Set(['value', 'val', 'parametervalue']);

/**
 * The credential a name/value pair names, which its value is masked by, or
 * undefined: an object whose naming member (`PAIR_NAMES`) holds a
 * credential's name (`DATABASE_PASSWORD`, `X-Api-Key`), or a list of two
 * whose first item does (`['X-Api-Key', key]`, fetch's `HeadersInit`).
 * Masked by member names alone, such a secret went into the journal, the
 * export and the console as it was: the name is in one member, the value
 * in another that names nothing. `values` are the members' values as the
 * projection read them, each once.
 */
export function pairCredentialName(keys: readonly string[], values: readonly unknown[]): string | undefined {
  for (let index = 0; index < keys.length; index += 1) {
    const value = values[index];
    if (typeof value === 'string' && PAIR_NAMES.has((keys[index] as string).toLowerCase()) && namesCredential(value)) return value;
  }
  return undefined;
}

/** The credential a list of two names by its first item, or undefined. */
export function tupleCredentialName(items: readonly unknown[]): string | undefined {
  const first = items[0];
  return items.length === 2 && typeof first === 'string' && namesCredential(first) ? first : undefined;
}
