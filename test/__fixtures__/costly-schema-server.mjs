// An upstream MCP server over stdio, written against the wire, whose schemas ask for `uniqueItems` on arrays of
// objects, which ajv checks by comparing every item with every other: `unique_out` answers with a structured value
// of `count` distinct objects under such an output schema (20,000 fit the output ceiling of 256 KiB), and
// `unique_in` takes such an array as its argument (6,000 fit the arguments' 64 KiB). `enum_out` answers with 40,000
// numbers under an output schema whose items must be one of 30,000 numbers, which ajv checks one by one for each item.
// Combinators multiply: `wide_out` answers with 20,000 objects under an output schema whose items must match one of
// 300 alternatives (each item tried against every one before the last), `nested_in` and `nested_out` carry a value
// nested `depth` arrays deep under a 2 KB schema of 22 definitions, each `anyOf` the one below it and an array of it
// (each level tried both ways: 2^depth checks), and `wide_compile` declares an `anyOf` of 2,000 alternatives in its
// input schema and `wide_output` in its output schema, whose compilation alone takes seconds (`broken_output`'s
// output schema names a definition it lacks, which no validator compiles, and `bad_pattern_output`'s a pattern no
// regular expression engine reads); `many_out` answers with 20,000 objects under 40 alternatives. `scoped_in` and
// `scoped_out` hold the same definitions inside a subschema with an `$id` of its own, reached by a JSON pointer
// through it, where `#/definitions/...` means that subschema's definitions and not the root's. `tracked_in` and
// `tracked_out` carry 20,000 empty objects under a 2019-09 schema whose items are one of an object of 1,000 names or a
// string: ajv records each name for each object, as the `anyOf` passes. `inline_compile` names a definition of 300
// properties by `$ref` from 300 properties, which ajv's compilation writes out at every reference.
import { createInterface } from 'node:readline';
import process from 'node:process';

const send = (message) => process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
const unique = { type: 'object', properties: { x: { type: 'array', uniqueItems: true } } };
const big = Array.from({ length: 30_000 }, (_, index) => index + 10_000);
const alternatives = (count) => Array.from({ length: count }, (_, index) => ({ type: 'object', required: [`k${index}`] }));
const definitions = { a0: { type: 'string' } };
for (let level = 1; level <= 22; level += 1) {
  const below = { $ref: `#/definitions/a${level - 1}` };
  definitions[`a${level}`] = { anyOf: [below, { type: 'array', items: below }] };
}
const nested = { type: 'object', definitions, properties: { x: { $ref: '#/definitions/a22' } } };
// The same definitions inside a subschema with an `$id` of its own, reached by a pointer through it: within it,
// `#/definitions/aN` names its own definitions (its base URI), while the root's `a22` it could be mistaken for is `{}`.
const scoped = {
  type: 'object',
  definitions: { a22: {}, inner: { $id: 'http://example.com/inner', definitions, properties: { entry: { $ref: '#/definitions/a22' } } } },
  properties: { x: { $ref: '#/definitions/inner/properties/entry' } },
};
const nestedValue = (depth) => {
  let value = 'a';
  for (let level = 0; level < depth; level += 1) value = [value];
  return value;
};
// A 2019-09 schema (ajv tracks which names each object's check evaluated, for `unevaluatedProperties`, used or not):
// items that are one of an object with 1,000 names, each `true` (one object in all, 12 KB), or a string.
const names = Object.fromEntries(Array.from({ length: 1_000 }, (_, index) => [`n${index}`, true]));
const tracked = { $schema: 'https://json-schema.org/draft/2019-09/schema', type: 'object', properties: { x: { type: 'array', items: { anyOf: [{ properties: names }, { type: 'string' }] } } } };
// A definition of 300 properties that 300 properties name by `$ref` (18 KB, about 600 objects): ajv writes a
// definition without references of its own out again at each reference to it, 90,000 properties in all.
const repeated = { type: 'object', properties: Object.fromEntries(Array.from({ length: 300 }, (_, index) => [`q${index}`, { type: 'string' }])) };
const inlined = { type: 'object', definitions: { repeated }, properties: Object.fromEntries(Array.from({ length: 300 }, (_, index) => [`p${index}`, { $ref: '#/definitions/repeated' }])) };
const tools = [
  { name: 'inline_compile', description: 'Takes many objects of many strings.', inputSchema: inlined },
  { name: 'tracked_in', description: 'Takes objects.', inputSchema: tracked },
  { name: 'tracked_out', description: 'Objects.', inputSchema: { type: 'object' }, outputSchema: tracked },
  { name: 'wide_out', description: 'Objects matching one of many shapes.', inputSchema: { type: 'object' }, outputSchema: { type: 'object', properties: { x: { type: 'array', items: { anyOf: alternatives(300) } } } } },
  { name: 'many_out', description: 'Objects matching one of several shapes.', inputSchema: { type: 'object' }, outputSchema: { type: 'object', properties: { x: { type: 'array', items: { anyOf: alternatives(40) } } } } },
  { name: 'nested_in', description: 'Takes nested arrays.', inputSchema: nested },
  { name: 'nested_out', description: 'Nested arrays.', inputSchema: { type: 'object' }, outputSchema: nested },
  { name: 'scoped_in', description: 'Takes nested arrays.', inputSchema: scoped },
  { name: 'scoped_out', description: 'Nested arrays.', inputSchema: { type: 'object' }, outputSchema: scoped },
  { name: 'wide_compile', description: 'Takes one of many shapes.', inputSchema: { type: 'object', properties: { x: { anyOf: alternatives(2_000) } } } },
  { name: 'broken_output', description: 'Answers a shape it never defines.', inputSchema: { type: 'object' }, outputSchema: { type: 'object', properties: { x: { $ref: '#/definitions/missing' } } } },
  { name: 'bad_pattern_output', description: 'Answers a string of a shape nobody can read.', inputSchema: { type: 'object' }, outputSchema: { type: 'object', properties: { x: { type: 'string', pattern: '(' } } } },
  { name: 'wide_output', description: 'Answers one of many shapes.', inputSchema: { type: 'object' }, outputSchema: { type: 'object', properties: { x: { anyOf: alternatives(2_000) } } } },
  { name: 'enum_out', description: 'Numbers from a long list.', inputSchema: { type: 'object' }, outputSchema: { type: 'object', properties: { x: { type: 'array', items: { enum: big } } } } },
  { name: 'unique_out', description: 'A structured value of distinct objects.', inputSchema: { type: 'object' }, outputSchema: unique },
  { name: 'unique_in', description: 'Takes distinct objects.', inputSchema: unique },
];

createInterface({ input: process.stdin }).on('line', (line) => {
  const message = JSON.parse(line);
  if (message.method === 'initialize') {
    send({ id: message.id, result: { protocolVersion: message.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'quadratic', version: '1' } } });
  } else if (message.method === 'tools/list') {
    send({ id: message.id, result: { tools } });
  } else if (message.method === 'tools/call') {
    const { name, arguments: args = {} } = message.params;
    if (name === 'enum_out') {
      send({ id: message.id, result: { content: [{ type: 'text', text: 'listed' }], structuredContent: { x: Array.from({ length: 40_000 }, () => 39_999) } } });
    } else if (name === 'wide_out' || name === 'many_out') {
      const last = name === 'wide_out' ? 'k299' : 'k39';
      const x = Array.from({ length: 20_000 }, () => ({ [last]: 1 }));
      send({ id: message.id, result: { content: [{ type: 'text', text: 'shapes' }], structuredContent: { x } } });
    } else if (name === 'nested_out' || name === 'scoped_out') {
      send({ id: message.id, result: { content: [{ type: 'text', text: 'nested' }], structuredContent: { x: nestedValue(args.depth ?? 2) } } });
    } else if (name === 'tracked_out') {
      send({ id: message.id, result: { content: [{ type: 'text', text: 'objects' }], structuredContent: { x: Array.from({ length: 20_000 }, () => ({})) } } });
    } else if (name === 'unique_out') {
      const x = Array.from({ length: args.count ?? 2 }, (_, index) => ({ a: index }));
      send({ id: message.id, result: { content: [{ type: 'text', text: 'distinct' }], structuredContent: { x } } });
    } else {
      send({ id: message.id, result: { content: [{ type: 'text', text: `${name} ok` }] } });
    }
  } else if (message.id !== undefined && message.method !== undefined) {
    send({ id: message.id, error: { code: -32601, message: 'Method not found' } });
  }
});
