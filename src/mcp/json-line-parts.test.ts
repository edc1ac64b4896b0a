import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonLineParts } from './json-line-parts.js';

const long = 'x'.repeat(20_000);
const wide = `${'y'.repeat(20_000)} — cut`;

describe('jsonLineParts', () => {
  it.each([
    ['a request', { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: { text: 'hi' } } }],
    ['a notification', { jsonrpc: '2.0', method: 'notifications/tools/list_changed' }],
    ['a result with long content and a structured value', { result: { content: [{ type: 'text', text: wide }], structuredContent: { content: long } }, jsonrpc: '2.0', id: 7 }],
    ['an error response', { jsonrpc: '2.0', id: 'a', error: { code: -32602, message: 'bad' } }],
    ['members that JSON leaves out', { result: { content: [], skipped: undefined, fn: () => 1, [Symbol('s')]: 1 }, jsonrpc: '2.0', id: 2, gone: undefined }],
    ['a null prototype, numeric keys and escapes', Object.assign(Object.create(null) as object, { 2: 'b', 1: 'a\n"q"', result: { '\u2028': long } })],
    ['keys and values with separators, lone surrogates, line breaks and a forged line', { jsonrpc: '2.0', id: 1, result: { '\ud800\n': '\u2028\udfff"}\n{"jsonrpc":"2.0","id":1}', ['\u2029' + long]: `${long}\ud83d`, ['__proto__']: { toJSON: 'text' } } }],
    ['a member with toJSON', { result: { when: new Date(0), text: long }, jsonrpc: '2.0', id: 3 }],
    ['a message with toJSON', { toJSON: (key: string) => ({ key }) }],
    ['an array', [1, { a: long }]],
  ])('writes %s as JSON.stringify does, line and all', (_label, message) => {
    expect(jsonLineParts(message).join('')).toBe(`${JSON.stringify(message)}\n`);
  });

  it('writes any JSON value, with members long enough to be parts of their own, as JSON.stringify does', () => {
    const text = fc.oneof(fc.string(), fc.string({ unit: 'binary', minLength: 8_200, maxLength: 9_000 }), fc.constant(wide));
    const value = fc.letrec((tie) => ({
      any: fc.oneof({ depthSize: 'small' }, text, fc.double(), fc.boolean(), fc.constant(null), fc.array(tie('any'), { maxLength: 3 }), fc.dictionary(fc.string(), tie('any'), { maxKeys: 4 })),
    })).any;
    fc.assert(
      fc.property(fc.dictionary(fc.string(), value, { maxKeys: 5 }), (message) => {
        expect(jsonLineParts(message).join('')).toBe(`${JSON.stringify(message)}\n`);
      }),
      { numRuns: 150 },
    );
  });

  it('keeps each long member a part of its own, so a wide one widens nothing else', () => {
    const parts = jsonLineParts({ result: { content: [{ type: 'text', text: wide }], structuredContent: { content: long } }, jsonrpc: '2.0', id: 7 });
    expect(parts).toEqual(['{"result":{"content":', JSON.stringify([{ type: 'text', text: wide }]), ',"structuredContent":', JSON.stringify({ content: long }), '},"jsonrpc":"2.0","id":7}\n']);
  });

  it('writes a short message as one part', () => {
    expect(jsonLineParts({ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'hi' }] } })).toHaveLength(1);
  });

  it('throws where JSON.stringify throws', () => {
    const cyclic: Record<string, unknown> = { jsonrpc: '2.0', id: 1 };
    cyclic.result = { again: cyclic };
    expect(() => jsonLineParts(cyclic)).toThrow(TypeError);
    expect(() => jsonLineParts({ result: { big: 1n } })).toThrow(TypeError);
  });
});
