import { describe, expect, it } from 'vitest';
import type { ResolvedAction } from '../action/resolved-action.js';
import type { GuardrailView } from './check-guardrails.js';
import { normalizePath, type NormalizedPath } from './normalize-path.js';
import type { ArgumentPolicyInput } from './policy-types.js';
import { createPathMatcher, createProtectedPathMatcher } from './protected-paths.js';
import { touchesProtected, type ProtectedPathRules } from './touches-protected.js';
import { toolView } from './__fixtures__/tool-views.js';

const ROOTS = ['/work/repo'];
const rules: ProtectedPathRules = { isProtected: createProtectedPathMatcher(['secrets/']), isReadable: createPathMatcher(['secrets/public.txt']), roots: ROOTS };
const path = (text: string): NormalizedPath => normalizePath(text, ROOTS) as NormalizedPath;
const view = (paths: readonly string[], argv?: readonly string[]): GuardrailView => ({ argv, paths: paths.map(path), host: undefined, invalidPath: false, linkedOut: false });
const input = (kind: 'read' | 'write' | 'command' | 'http', action?: ResolvedAction): ArgumentPolicyInput => ({
  tool: toolView(kind),
  agent: undefined,
  args: {},
  target: undefined,
  ...(action === undefined ? {} : { action }),
  gateApproved: false,
});

describe('touchesProtected', () => {
  it('asks for a write to a protected path, even one readable without asking', () => {
    expect(touchesProtected(input('write'), view(['secrets/public.txt']), rules)).toBe(true);
    expect(touchesProtected(input('write'), view(['src/a.ts']), rules)).toBe(false);
  });

  it('lets a read of a readable protected path through, and asks for any other', () => {
    expect(touchesProtected(input('read'), view(['secrets/public.txt']), rules)).toBe(false);
    expect(touchesProtected(input('read'), view(['secrets/public.txt', 'secrets/key.pem']), rules)).toBe(true);
  });

  it('asks when a command names a protected path among its arguments', () => {
    expect(touchesProtected(input('command'), view([], ['cat', 'secrets/public.txt']), rules)).toBe(true);
    expect(touchesProtected(input('command'), view([], ['cat', 'README.md']), rules)).toBe(false);
  });

  it('asks when the host found a file with several hard links, whatever its name', () => {
    const action = { resolvedBy: 'host', files: [{ path: 'notes.txt', real: 'notes.txt', protected: false, hardLinked: true }] } as unknown as ResolvedAction;
    expect(touchesProtected(input('read', action), view(['notes.txt']), rules)).toBe(true);
  });

  it('asks for a git command printing objects when the host says the store may hold a protected file, or says nothing', () => {
    const withStore = (protectedNames: boolean, unreachable: boolean): ResolvedAction =>
      ({ resolvedBy: 'host', files: [], command: { argv: [], cwd: {}, objectStore: { protectedNames, unreachable, namesUnreachable: false } } }) as unknown as ResolvedAction;
    expect(touchesProtected(input('command', withStore(true, false)), view([], ['git', 'log', '-p']), rules)).toBe(true);
    expect(touchesProtected(input('command', withStore(false, false)), view([], ['git', 'log', '-p']), rules)).toBe(false);
    expect(touchesProtected(input('command'), view([], ['git', 'log', '-p']), rules)).toBe(true);
    expect(touchesProtected(input('command', withStore(false, true)), view([], ['git', 'cat-file', '-p', '92dc429']), rules)).toBe(true);
    expect(touchesProtected(input('command', withStore(true, true)), view([], ['git', 'status']), rules)).toBe(false);
  });

  it('never asks for a tool that touches no file and runs nothing', () => {
    expect(touchesProtected(input('http'), view(['secrets/key.pem']), rules)).toBe(false);
  });
});
