import { namesCredential, namesTupleCredential } from '../policy/credential-spans.js';

/**
 * The members that name the entry of a name/value pair, in any case:
 * `{ name: 'Authorization', value }` (HAR, Postman, Kubernetes' `env`),
 * AWS's `{ Name, Value }` and `{ Key, Value }`, CloudFormation's
 * `{ ParameterKey, ParameterValue }`.
 */
const PAIR_NAME = /^(?:name|key|header|field|variable|parameterkey|parametername)$/i;
/** The members that hold a pair's value (EC2's and ELB's filters say `Values`). */
const PAIR_VALUE = /^(?:values?|val|parametervalue)$/i;

/** Whether a member holds a pair's value: its first letter is read before the pattern, as most members are no such thing. */
export function isPairValue(key: string): boolean {
  const first = key.charCodeAt(0) | 0x20;
  return (first === 118 || first === 112) && PAIR_VALUE.test(key);
}

/**
 * A string a credential is named by, as a pair or a list names one: a
 * credential's name (`DATABASE_PASSWORD`, `X-Api-Key`), also as the last
 * part of a path (AWS Systems Manager's `/prod/db/password`); undefined for
 * anything else.
 */
function credentialNamed(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  if (namesCredential(value)) return value;
  const last = value.slice(value.lastIndexOf('/') + 1);
  return last !== value && namesCredential(last) ? last : undefined;
}

/**
 * The credential a name/value pair object names, which its value member
 * (`isPairValue`) is masked by, or undefined: its naming member
 * (`PAIR_NAME`) holds a credential's name. Masked by member names alone,
 * such a secret went into the journal, the export and the console as it
 * was: the name is in one member, the value in another that names nothing.
 * `values` are the first members' values as the projection read them, each
 * once; a naming member past them (an object cut short) is read here.
 */
export function pairCredentialName(node: object, keys: readonly string[], values: readonly unknown[]): string | undefined {
  for (let index = 0; index < keys.length; index += 1) {
    const key = keys[index] as string;
    if (!PAIR_NAME.test(key)) continue;
    const named = credentialNamed(index < values.length ? values[index] : (node as Record<string, unknown>)[key]);
    if (named !== undefined) return named;
  }
  return undefined;
}

/**
 * The credential a list of two names by its first item, which the second is
 * masked by (`namesTupleCredential`: fetch's `[['X-Api-Key', key]]`, an
 * environment's `[['PGPASSWORD', …]]`), or undefined. Only a list of two,
 * and the projection asks only of one inside a list: in an argv the item
 * after a header's name or a flag, or a second operand, is as often what
 * the call acts on (`curl -H Authorization <url>`, `scp deploy.key host:`),
 * which a card must show.
 */
export function tupleCredentialName(items: readonly unknown[]): string | undefined {
  const first = items[0];
  return items.length === 2 && typeof first === 'string' && namesTupleCredential(first) ? first : undefined;
}
