import { describe, expect, it } from 'vitest';
import type { ResolvedAction, ResolvedPath } from '../action/resolved-action.js';
import type { PolicyTarget } from '../tools/tool-types.js';
import { guardrailView } from './guardrail-view.js';
import type { ArgumentPolicyInput } from './policy-types.js';
import { toolView } from './__fixtures__/tool-views.js';

const ROOTS = ['/work/repo'];
const input = (target: PolicyTarget | undefined, action?: ResolvedAction): ArgumentPolicyInput => ({
  tool: toolView('read'),
  agent: undefined,
  args: {},
  target,
  ...(action === undefined ? {} : { action }),
  gateApproved: false,
});

const file = (path: string, real: string, extra: Partial<ResolvedPath> = {}): ResolvedPath =>
  ({ requested: path, path, real, protected: false, linkTraversal: real !== path, outside: false, created: false, hardLinked: false, ...extra });

describe('guardrailView', () => {
  it('splits a command given as a string or as an argv, and refuses to read any other shape', () => {
    expect(guardrailView(input({ command: 'git status --short' }), ROOTS).argv).toEqual(['git', 'status', '--short']);
    expect(guardrailView(input({ command: ['git', 'log'] }), ROOTS).argv).toEqual(['git', 'log']);
    expect(guardrailView(input({ command: ['git', 7] as unknown as string[] }), ROOTS).argv).toBeUndefined();
  });

  it('takes the host of an HTTPS URL only', () => {
    expect(guardrailView(input({ url: 'https://docs.example.com/a' }), ROOTS).host).toBe('docs.example.com');
    expect(guardrailView(input({ url: 'http://docs.example.com/a' }), ROOTS).host).toBeUndefined();
  });

  it('normalizes path and paths, and marks a path that is not a string as invalid', () => {
    const view = guardrailView(input({ path: 'src/a.ts', paths: ['/work/repo/b.ts', 3 as unknown as string] }), ROOTS);
    expect(view.paths.map((path) => path.relative)).toEqual(['src/a.ts', 'b.ts']);
    expect(view.invalidPath).toBe(true);
    expect(view.linkedOut).toBe(false);
  });

  it('adds where a host resolved a path, once, and notes a link that leads out of the workspace', () => {
    const action = { resolvedBy: 'host', files: [file('notes', '/home/user/.ssh/id_rsa', { outside: true }), file('src/a.ts', 'src/a.ts')] } as unknown as ResolvedAction;
    const view = guardrailView(input({ paths: ['notes', 'src/a.ts'] }, action), ROOTS);
    expect(view.paths.map((path) => path.path)).toEqual(['notes', 'src/a.ts', '/home/user/.ssh/id_rsa']);
    expect(view.linkedOut).toBe(true);
  });
});
