import { describe, expect, it } from 'vitest';
import { evaluateJsonPointer, parseJsonPointer } from './json-pointer.js';

const at = (document: unknown, pointer: string) => evaluateJsonPointer(document, parseJsonPointer(pointer) ?? []);

describe('parseJsonPointer', () => {
  it('reads reference tokens with the ~1 and ~0 escapes, ~01 being "~1" and not "/"', () => {
    expect(parseJsonPointer('/path')).toEqual(['path']);
    expect(parseJsonPointer('/a/b')).toEqual(['a', 'b']);
    expect(parseJsonPointer('/a~1b')).toEqual(['a/b']);
    expect(parseJsonPointer('/m~0n')).toEqual(['m~n']);
    expect(parseJsonPointer('/~01')).toEqual(['~1']);
    expect(parseJsonPointer('/')).toEqual(['']);
    expect(parseJsonPointer('/a//b')).toEqual(['a', '', 'b']);
  });

  it('refuses what is not a pointer, and the whole document', () => {
    for (const text of ['', 'path', 'a/b', '/a~2', '/a~', '#/path', 42, null, undefined, ['/path']]) {
      expect(parseJsonPointer(text), String(text)).toBeUndefined();
    }
  });
});

describe('evaluateJsonPointer', () => {
  const args = { path: 'a.txt', nested: { 'x/y': 'slash', 'm~n': 'tilde', '': 'empty' }, list: ['zero', 'one'], n: 3 };

  it('finds members, escaped members and array elements', () => {
    expect(at(args, '/path')).toEqual({ found: true, value: 'a.txt' });
    expect(at(args, '/nested/x~1y')).toEqual({ found: true, value: 'slash' });
    expect(at(args, '/nested/m~0n')).toEqual({ found: true, value: 'tilde' });
    expect(at(args, '/nested/')).toEqual({ found: true, value: 'empty' });
    expect(at(args, '/list/1')).toEqual({ found: true, value: 'one' });
    expect(at(args, '/list')).toEqual({ found: true, value: ['zero', 'one'] });
  });

  it('finds nothing for a missing member, a bad or out-of-range index, or a member of a scalar', () => {
    for (const pointer of ['/missing', '/nested/missing', '/list/2', '/list/-', '/list/01', '/list/-1', '/list/1e0', '/n/0', '/path/length', '/list/length']) {
      expect(at(args, pointer), pointer).toEqual({ found: false });
    }
    expect(at(null, '/path')).toEqual({ found: false });
    expect(at('text', '/0')).toEqual({ found: false });
  });

  it('never reads an inherited member: __proto__ and constructor are what the arguments hold under those keys', () => {
    expect(at({}, '/__proto__')).toEqual({ found: false });
    expect(at({}, '/constructor')).toEqual({ found: false });
    expect(at({}, '/toString')).toEqual({ found: false });
    expect(at([], '/constructor')).toEqual({ found: false });
    // JSON.parse makes "__proto__" an own member, which is what a client's arguments arrive as.
    const parsed: unknown = JSON.parse('{"__proto__": {"path": "/etc/passwd"}}');
    expect(at(parsed, '/__proto__/path')).toEqual({ found: true, value: '/etc/passwd' });
  });
});
