import type { JsonSchema } from '../tools/tool-types.js';
import type { ObjectJsonSchema } from './projection-types.js';

/**
 * The input schema with an explicit object root. The registry refuses an
 * input schema whose root type is anything but `object`, so an untyped root
 * (e.g. one built from `properties` alone) is an object already.
 */
export function objectRootSchema(schema: JsonSchema): ObjectJsonSchema {
  return (schema.type === 'object' ? schema : { ...schema, type: 'object' }) as ObjectJsonSchema;
}
