import { RELATED_TASK_META_KEY, ResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { UPSTREAM_RESULT_SCHEMA } from './upstream-result-schema.js';

const results: [string, unknown][] = [
  ['a result with content', { content: [{ type: 'text', text: 'hi' }] }],
  ['an empty result', {}],
  ['a result with a string progress token', { _meta: { progressToken: 'p' } }],
  ['a result with an integer progress token', { _meta: { progressToken: 7 }, content: [] }],
  ['a result with other _meta members', { _meta: { 'example.com/trace': { id: 1 } } }],
  ['a result with a related task', { _meta: { [RELATED_TASK_META_KEY]: { taskId: 't1' } } }],
  ['null', null],
  ['an array', [{ content: [] }]],
  ['a string', 'result'],
  ['a number', 42],
  ['a _meta that is null', { _meta: null }],
  ['a _meta that is an array', { _meta: [] }],
  ['a _meta that is a string', { _meta: 'meta' }],
  ['a fractional progress token', { _meta: { progressToken: 1.5 } }],
  ['an unsafe integer progress token', { _meta: { progressToken: 2 ** 60 } }],
  ['a null progress token', { _meta: { progressToken: null } }],
  ['an object progress token', { _meta: { progressToken: {} } }],
  ['a related task that is not an object', { _meta: { [RELATED_TASK_META_KEY]: 't1' } }],
  ['a related task without an id', { _meta: { [RELATED_TASK_META_KEY]: {} } }],
  ['a related task with a numeric id', { _meta: { [RELATED_TASK_META_KEY]: { taskId: 1 } } }],
];

describe('UPSTREAM_RESULT_SCHEMA', () => {
  it.each(results)('takes %s exactly as the SDK result schema does', (_label, value) => {
    expect(UPSTREAM_RESULT_SCHEMA.safeParse(value).success).toBe(ResultSchema.safeParse(value).success);
  });

  it('hands on the result it was given, not a copy', () => {
    const result = { content: [{ type: 'text', text: 'hi' }], _meta: { progressToken: 1 } };
    expect(UPSTREAM_RESULT_SCHEMA.safeParse(result).data).toBe(result);
  });
});
