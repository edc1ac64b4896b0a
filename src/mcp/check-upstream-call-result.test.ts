import { describe, expect, it } from 'vitest';
import { asCallToolResult, findMalformedCallResult, MAX_MEDIA_BLOCKS } from './check-upstream-call-result.js';

/** Arrays nested `depth` levels, as JSON.parse reads them from a line (a recursive walk overflows the stack on them). */
const deep = (depth: number): unknown => JSON.parse(`${'['.repeat(depth)}${']'.repeat(depth)}`);

describe('findMalformedCallResult', () => {
  it('accepts every MCP content type, an absent content, isError and structuredContent', () => {
    const blocks = [
      { type: 'text', text: 'hi', annotations: { audience: ['user'] }, _meta: { any: 1 } },
      { type: 'image', data: 'aGk=', mimeType: 'image/png' },
      { type: 'audio', data: 'aGk', mimeType: 'audio/wav' },
      { type: 'resource', resource: { uri: 'file:///a', text: 'a' } },
      { type: 'resource', resource: { uri: 'file:///b', blob: 'aGk=', mimeType: 'application/octet-stream' } },
      { type: 'resource_link', uri: 'file:///c', name: 'c' },
    ];
    expect(findMalformedCallResult({ content: blocks, isError: false, structuredContent: { a: 1 }, _meta: {} })).toBeUndefined();
    expect(findMalformedCallResult({})).toBeUndefined();
    // A structured value may nest as deep as the pipeline takes one (64 levels: itself and 63 below it).
    expect(findMalformedCallResult({ content: [], structuredContent: { x: deep(63) } })).toBeUndefined();
    expect(asCallToolResult({}).content).toEqual([]);
  });

  it.each([
    ['a result that is not an object', 'text', 'the result is not an object'],
    ['a result that is an array', [], 'the result is not an object'],
    ['content that is not an array', { content: { type: 'text', text: 'x' } }, 'content is not an array'],
    ['a block that is not an object', { content: ['x'] }, 'content[0] is not an object'],
    ['a text block without text', { content: [{ type: 'text', text: 42 }] }, 'content[0] has no text'],
    ['a block of no MCP type', { content: [{ type: 'text', text: 'ok' }, { type: 'script', text: 'x' }] }, 'content[1] is of no MCP content type'],
    ['a block with no type', { content: [{ text: 'x' }] }, 'content[0] is of no MCP content type'],
    ['an image whose data is not base64', { content: [{ type: 'image', data: 'not base64!', mimeType: 'image/png' }] }, 'content[0] has no base64 data'],
    ['an image without a mimeType', { content: [{ type: 'image', data: 'aGk=' }] }, 'content[0] has no mimeType'],
    ['a resource without a uri', { content: [{ type: 'resource', resource: { text: 'x' } }] }, 'content[0] has no resource uri'],
    ['a resource with neither text nor blob', { content: [{ type: 'resource', resource: { uri: 'file:///a' } }] }, 'content[0] has a resource with neither text nor base64 blob'],
    ['a resource link without a name', { content: [{ type: 'resource_link', uri: 'file:///a' }] }, 'content[0] has no uri or name'],
    ['isError that is a string', { content: [], isError: 'true' }, 'isError is not a boolean'],
    ['structuredContent that is an array', { content: [], structuredContent: [1] }, 'structuredContent is not an object'],
    ['structuredContent that is null', { content: [], structuredContent: null }, 'structuredContent is not an object'],
    ['a block whose _meta nests 20,000 levels', { content: [{ type: 'text', text: 'x', _meta: { x: deep(20_000) } }] }, 'it nests deeper than 64 levels'],
    ['structuredContent that nests 20,000 levels', { content: [], structuredContent: { x: deep(20_000) } }, 'it nests deeper than 64 levels'],
  ])('refuses %s, naming the field and quoting nothing', (_label, result, problem) => {
    expect(findMalformedCallResult(result)).toBe(problem);
  });

  it('refuses a result holding more media blocks than it stores, and counts none it would not store', () => {
    const images = (count: number) => Array.from({ length: count }, () => ({ type: 'image', data: 'aGk=', mimeType: 'image/png' }));
    expect(findMalformedCallResult({ content: images(MAX_MEDIA_BLOCKS) })).toBeUndefined();
    expect(findMalformedCallResult({ content: [...images(MAX_MEDIA_BLOCKS), { type: 'resource', resource: { uri: 'file:///b', blob: 'aGk=' } }] })).toBe(`content holds more than ${MAX_MEDIA_BLOCKS} media blocks`);
    // Text resources are text; the blocks beside a structured value, and an isError's, are never stored.
    expect(findMalformedCallResult({ content: [...images(MAX_MEDIA_BLOCKS), { type: 'resource', resource: { uri: 'file:///a', text: 'a' } }] })).toBeUndefined();
    expect(findMalformedCallResult({ content: images(MAX_MEDIA_BLOCKS + 1), structuredContent: {} })).toBeUndefined();
    expect(findMalformedCallResult({ content: images(MAX_MEDIA_BLOCKS + 1), isError: true })).toBeUndefined();
  });
});

describe('asCallToolResult', () => {
  it('keeps only the part that goes on: a structured value without the blocks beside it, else the blocks; never _meta or another member', () => {
    const text = [{ type: 'text', text: 'beside' }];
    expect(asCallToolResult({ content: text, structuredContent: { ok: true }, _meta: { note: 'n' }, extra: 1 })).toEqual({ content: [], structuredContent: { ok: true } });
    expect(asCallToolResult({ content: text, _meta: { note: 'n' }, isError: false })).toEqual({ content: text, isError: false });
    // An error goes on as its text: a structured value beside it reaches no one.
    expect(asCallToolResult({ content: text, structuredContent: { ok: false }, isError: true, _meta: {} })).toEqual({ content: text, isError: true });
    expect(asCallToolResult({ _meta: { deep: deep(20_000) } })).toEqual({ content: [] });
  });
});
