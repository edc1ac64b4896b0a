/** `count` object shapes, each requiring a member of its own (`k0`, `k1`…): a union of them tries an item against each. */
export const shapes = (count: number) => Array.from({ length: count }, (_, index) => ({ type: 'object', required: [`k${index}`] }));

/**
 * Definitions a0…a`levels`, each `anyOf` the one below and an array of it,
 * under a member `x`: each level of a value is tried both ways, so checking
 * one `levels` arrays deep takes 2^levels checks.
 */
export function twoWaysDown(levels: number) {
  const definitions: Record<string, unknown> = { a0: { type: 'string' } };
  for (let level = 1; level <= levels; level += 1) {
    const below = { $ref: `#/definitions/a${level - 1}` };
    definitions[`a${level}`] = { anyOf: [below, { type: 'array', items: below }] };
  }
  return { type: 'object', definitions, properties: { x: { $ref: `#/definitions/a${levels}` } } };
}
