import { describe, expect, it } from 'vitest';
import { ConfigurationError } from '../core/internal.js';
import { checkArgumentTargets, compileArgumentTargets } from './argument-targets.js';

const field = 'servers.fs.targets.tool';

describe('compileArgumentTargets', () => {
  it('reads path, paths (strings, arrays, several pointers), url and command from the arguments', () => {
    const targets = compileArgumentTargets({ path: '/path', paths: ['/source', '/more'], url: '/request/url', command: '/argv' }, field);
    expect(targets({ path: 'a', source: 'b', more: ['c', 'd'], request: { url: 'https://x.example/' }, argv: ['git', 'status'] })).toEqual({
      path: 'a',
      paths: ['b', 'c', 'd'],
      url: 'https://x.example/',
      command: ['git', 'status'],
    });
    expect(compileArgumentTargets({ command: '/command' }, field)({ command: 'git status' })).toEqual({ command: 'git status' });
  });

  it('puts the first path found first: a tool with only paths still shows one path', () => {
    expect(compileArgumentTargets({ paths: ['/source', '/destination'] }, field)({ source: 'a', destination: 'b' })).toEqual({ path: 'a', paths: ['b'] });
    expect(compileArgumentTargets({ paths: '/paths' }, field)({ paths: ['only'] })).toEqual({ path: 'only' });
  });

  it('gives no target of a kind whose member is absent', () => {
    const targets = compileArgumentTargets({ path: '/path', paths: '/paths', url: '/url', command: '/command' }, field);
    expect(targets({})).toEqual({});
    expect(targets({ paths: [] })).toEqual({});
    expect(targets({ other: '/etc/passwd' })).toEqual({});
  });

  it('throws for a member of the wrong type, so the call is refused rather than judged without it', () => {
    const targets = compileArgumentTargets({ path: '/path', paths: '/paths', url: '/url', command: '/command' }, field);
    for (const args of [{ path: 42 }, { path: null }, { path: ['a'] }, { path: { toString: 'x' } }, { paths: [1] }, { paths: ['a', null] }, { paths: 7 }, { url: 1 }, { url: ['https://x.example/'] }, { command: ['git', 1] }, { command: { argv: [] } }]) {
      expect(() => targets(args), JSON.stringify(args)).toThrow(ConfigurationError);
    }
    expect(() => targets({ url: null })).toThrow('Configuration "servers.fs.targets.tool.url" names a member that is null in the arguments.');
  });

  it('refuses arguments holding a __proto__ member or constructor.prototype at any depth: a copy or merge upstream would read targets from them that were never judged', () => {
    const targets = compileArgumentTargets({ path: '/options/path' }, field);
    const refused = [
      '{"options":{"__proto__":{"path":"/etc/passwd"}}}',
      '{"__proto__":{"options":{"path":"/etc/passwd"}}}',
      '{"options":{"path":"notes.md"},"extra":[{"a":{"__proto__":{}}}]}',
      '{"options":{"constructor":{"prototype":{"path":"/etc/passwd"}}}}',
      '{"list":[[{"constructor":{"prototype":{}}}]]}',
    ];
    for (const json of refused) expect(() => targets(JSON.parse(json)), json).toThrow('cannot be read from arguments that hold a __proto__ member');
    // Only member names count, and only these shapes: a string, another name or a constructor without a prototype is data.
    expect(targets(JSON.parse('{"options":{"path":"a.md","note":"__proto__","__proto__x":{},"constructor":"Object","c":{"constructor":{"name":"x"}}}}'))).toEqual({ path: 'a.md' });
    // Walked without recursion: nesting as deep as a message allows is read, not a stack overflow.
    let deep: unknown = { leaf: true };
    for (let level = 0; level < 100_000; level += 1) deep = level % 2 === 0 ? [deep] : { level: deep };
    expect(targets({ options: { path: 'a.md' }, deep })).toEqual({ path: 'a.md' });
  });

  it('refuses arguments holding, along a pointer, a member named like its token up to case: an upstream that matches names so would read that one', () => {
    const targets = compileArgumentTargets({ path: '/options/path', paths: '/items/0/source', url: '/link' }, field);
    const refused = [
      { options: { path: 'a.md', PATH: '/etc/passwd' } },
      { options: { Path: '/etc/passwd' } },
      { options: { path: 'a.md' }, OPTIONS: { path: '/etc/passwd' } },
      { items: [{ source: 'a.md', '\u017Fource': '/etc/passwd' }] },
      { LINK: 'https://evil.example/' },
    ];
    for (const args of refused) expect(() => targets(args), JSON.stringify(args)).toThrow('cannot be read from arguments that also hold a member named like it up to case');
    expect(() => compileArgumentTargets({ path: '/kind' }, field)({ '\u212Aind': '/etc/passwd' })).toThrow(ConfigurationError);
    expect(() => compileArgumentTargets({ path: '/stra\u00DFe' }, field)({ 'stra\u1E9Ee': '/etc/passwd' })).toThrow(ConfigurationError);
    // Only the members along a pointer count: the same names elsewhere, or other names of the same length, are data.
    expect(targets({ options: { path: 'a.md', PATHS: 'x', pats: 'y' }, other: { PATH: '/etc/passwd' }, items: [{ source: 'b.md' }, { SOURCE: 'c' }] })).toEqual({ path: 'a.md', paths: ['b.md'] });
  });

  it('refuses a pointer that goes on into a string: an upstream that parses the string as JSON would read a member never judged', () => {
    const targets = compileArgumentTargets({ path: '/options/path', paths: '/list/0/source' }, field);
    for (const args of [{ options: '{"path":"/etc/passwd"}' }, { options: 'default' }, { list: ['[{"source":"/etc/passwd"}]'] }]) {
      expect(() => targets(args), JSON.stringify(args)).toThrow('names a member inside a string in the arguments');
    }
    // A null, number or boolean holds no member in any reading: the target is absent, as before.
    expect(targets({ options: null, list: [7] })).toEqual({});
    // A target string that is JSON of a list or an object is refused too; one that only looks like it is a path.
    for (const path of ['["/etc/passwd"]', ' {"a":1} ', '[]']) expect(() => targets({ options: { path } }), path).toThrow('names a string that is JSON of a list or an object');
    expect(targets({ options: { path: '[draft] notes.md' }, list: [{ source: '[1' }] })).toEqual({ path: '[draft] notes.md', paths: ['[1'] });
  });

  it('judges every spelling a server reads a path as', () => {
    const targets = compileArgumentTargets({ path: '/path', paths: '/more' }, field, { spellings: (path) => [`/root/${path}`, `/other/${path}`] });
    expect(targets({ path: 'a', more: ['b'] })).toEqual({ path: '/root/a', paths: ['/other/a', '/root/b', '/other/b'] });
  });
  it('reads the entries of paths in the folder pathsWithin names, joined as spelled, so a link before `..` is walked where the server walks it', () => {
    const targets = compileArgumentTargets({ path: '/repo_path', paths: '/files' }, field, { pathsWithin: '/repo_path' });
    expect(targets({ repo_path: 'sub', files: ['../.env', 'a.md', '/abs/b.md'] })).toEqual({ path: 'sub', paths: ['sub/../.env', 'sub/a.md', '/abs/b.md'] });
    expect(targets({ repo_path: 'sub/', files: ['x'] })).toEqual({ path: 'sub/', paths: ['sub/x'] });
    expect(targets({ repo_path: '', files: ['x'] })).toEqual({ path: '', paths: ['x'] });
    expect(() => targets({ repo_path: 5, files: ['x'] })).toThrow(ConfigurationError);
  });
});

describe('checkArgumentTargets', () => {
  it('names the key that is wrong', () => {
    expect(() => checkArgumentTargets({ file: '/path' }, field)).toThrow('Configuration "servers.fs.targets.tool.file" is not a target kind');
    expect(() => checkArgumentTargets({ path: 'path' }, field)).toThrow('Configuration "servers.fs.targets.tool.path" must be a JSON pointer');
    expect(() => checkArgumentTargets({ url: '/a~2' }, field)).toThrow('"servers.fs.targets.tool.url" must be a JSON pointer');
    expect(() => checkArgumentTargets({ paths: [] }, field)).toThrow('"servers.fs.targets.tool.paths" must name at least one JSON pointer');
    expect(() => checkArgumentTargets({ paths: ['/a', 3] }, field)).toThrow('"servers.fs.targets.tool.paths" must be a JSON pointer');
    expect(() => checkArgumentTargets({ path: ['/a'] }, field)).toThrow('"servers.fs.targets.tool.path" must be a JSON pointer');
    expect(() => checkArgumentTargets('/path', field)).toThrow('"servers.fs.targets.tool" must be an object');
    expect(checkArgumentTargets({ path: '/a~1b', paths: ['/c', '/d'] }, field)).toEqual({ path: '/a~1b', paths: ['/c', '/d'] });
  });
});
