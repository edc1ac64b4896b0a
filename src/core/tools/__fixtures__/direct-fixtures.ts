import type { DirectValidator } from '../direct-program.js';

/** A compiled direct validator, or a test failure when there is none. */
export function mustCompile<Schema>(compile: (schema: Schema) => DirectValidator | undefined, schema: Schema): DirectValidator {
  const validate = compile(schema);
  if (validate === undefined) throw new Error('expected a direct validator');
  return validate;
}

/**
 * Same prototypes, same own members in the same order, same leaves: stricter
 * than `toStrictEqual` on order, and blind to a member named "constructor".
 */
export function sameShape(left: unknown, right: unknown): boolean {
  if (typeof left !== 'object' || left === null || typeof right !== 'object' || right === null) return Object.is(left, right);
  if (Object.getPrototypeOf(left) !== Object.getPrototypeOf(right)) return false;
  const leftKeys = Reflect.ownKeys(left);
  const rightKeys = Reflect.ownKeys(right);
  return leftKeys.length === rightKeys.length && leftKeys.every((key, index) => key === rightKeys[index] && sameShape((left as Record<PropertyKey, unknown>)[key], (right as Record<PropertyKey, unknown>)[key]));
}

/** An array whose proxy says its `length` is a string: `new Array` of it would hold that string, unchecked. */
export function stringLengthArray(): unknown[] {
  return new Proxy([7], { get: (target, key) => (key === 'length' ? '0hello' : Reflect.get(target, key)) });
}
