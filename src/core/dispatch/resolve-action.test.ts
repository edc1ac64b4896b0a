import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { ResolvedPath } from '../action/resolved-action.js';
import type { ResolvedTarget, ResolveTargetRequest, ToolHost } from '../host/tool-host.js';
import type { ArgumentPolicyInput, PathPlacement, ToolPolicy } from '../policy/policy-types.js';
import { createToolRegistry } from '../registry/create-tool-registry.js';
import { defineTool } from '../tools/define-tool.js';
import { ALLOW } from './__fixtures__/pipeline-fixtures.js';

const touchFiles = defineTool({
  name: 'touch_files',
  description: 'Touch files.',
  input: z.object({ paths: z.array(z.string()) }),
  policy: { fsScoped: true, fsWrite: true },
  policyTarget: (args) => ({ paths: args.paths }),
  dispatch: () => 'touched',
});

const runIn = defineTool({
  name: 'run_in',
  description: 'Run a command in a folder.',
  input: z.object({ cwd: z.string(), command: z.string() }),
  policy: { spawnsProcess: true },
  policyTarget: (args) => ({ path: args.cwd, command: args.command }),
  dispatch: () => 'ran',
});

function hostPath(requested: string, real: string, isProtected = false): ResolvedPath {
  return { requested, path: requested, real, protected: isProtected, linkTraversal: real !== requested, outside: false, created: false, hardLinked: false, identity: `file:1:${requested}` };
}

/** A policy that protects what starts with `secret/` and records every path it classifies and every action it judges. */
function classifyingPolicy(): ToolPolicy & { readonly classified: string[]; readonly actions: ArgumentPolicyInput['action'][] } {
  const classified: string[] = [];
  const actions: ArgumentPolicyInput['action'][] = [];
  return {
    version: 1,
    classified,
    actions,
    decideIdentity: () => ALLOW,
    decideArguments: (input) => {
      actions.push(input.action);
      return ALLOW;
    },
    classifyPath(path: string): PathPlacement {
      classified.push(path);
      return { relative: path, protected: path.startsWith('secret/') };
    },
  };
}

function resolvingHost(answer: (request: ResolveTargetRequest) => ResolvedTarget): ToolHost & { readonly answers: ResolvedTarget[] } {
  const answers: ResolvedTarget[] = [];
  return {
    answers,
    resolve: (request) => {
      const given = answer(request);
      answers.push(given);
      return given;
    },
  };
}

describe('resolveAction: the host answer and the policy view, in one frozen action', () => {
  it('classifies a path once when it really is where it is spelled, both sides when a link moved it, and not at all when the host already protects it', async () => {
    const policy = classifyingPolicy();
    const host = resolvingHost(() => ({ files: [hostPath('a.txt', 'a.txt'), hostPath('link.txt', 'secret/key'), hostPath('.env', '.env', true)] }));
    const registry = createToolRegistry({ tools: [touchFiles], host, policy });
    const outcome = await registry.dispatch({ callId: 'c', name: 'touch_files', arguments: { paths: ['a.txt', 'link.txt', '.env'] } }, { grantedTools: ['touch_files'], approval: { confirm: () => Promise.resolve({ outcome: 'approve' }) } });
    expect(outcome.ok).toBe(true);
    expect(policy.classified).toEqual(['a.txt', 'link.txt', 'secret/key']);
    const files = policy.actions[0]?.files ?? [];
    expect(files.map((file) => file.protected)).toEqual([false, true, true]);
    expect(files.map((file) => file.identity)).toEqual(['file:1:a.txt', 'file:1:link.txt', 'file:1:.env']);
  });

  it('freezes the action, its lists and every path in it, and copies the host answer rather than freezing it', async () => {
    const policy = classifyingPolicy();
    const host = resolvingHost((request) => ({ files: [hostPath('work', 'work')], executable: '/usr/bin/cat', arguments: (request.arguments ?? []).map((path) => hostPath(path, path)) }));
    const registry = createToolRegistry({ tools: [runIn], host, policy });
    const outcome = await registry.dispatch({ callId: 'c', name: 'run_in', arguments: { cwd: 'work', command: 'cat notes.md' } }, { grantedTools: ['run_in'], approval: { confirm: () => Promise.resolve({ outcome: 'approve' }) } });
    expect(outcome.ok).toBe(true);
    const action = policy.actions[0];
    const command = action?.command;
    expect(action?.resolvedBy).toBe('host');
    expect(command?.executable).toBe('/usr/bin/cat');
    expect(command?.cwd).toEqual(action?.files[0]);
    expect(command?.arguments?.map((file) => file.real)).toEqual(['work/notes.md']);
    for (const value of [action, action?.files, action?.files[0], command, command?.argv, command?.cwd, command?.arguments, command?.arguments?.[0]]) expect(Object.isFrozen(value)).toBe(true);
    const answer = host.answers[0];
    expect(Object.isFrozen(answer?.files[0])).toBe(false);
    expect(action?.files[0]).not.toBe(answer?.files[0]);
  });

  it("asks the host what a git command's repository holds, from the folder git enters, and copies its answer into the command", async () => {
    const policy = classifyingPolicy();
    const asked: [string | undefined, readonly string[] | undefined][] = [];
    const host = resolvingHost((request) => {
      asked.push([request.repository, request.objectIds]);
      return { files: [hostPath('work', 'work')], objectStore: { protectedNames: true, unreachable: false, namesUnreachable: false } };
    });
    const registry = createToolRegistry({ tools: [runIn], host, policy });
    const run = (command: string) => registry.dispatch({ callId: 'c', name: 'run_in', arguments: { cwd: 'work', command } }, { grantedTools: ['run_in'], approval: { confirm: () => Promise.resolve({ outcome: 'approve' }) } });
    await run('git -C sub log -p');
    await run('git status');
    await run('git tag t 92dc429');
    expect(asked).toEqual([
      ['work/sub', []],
      [undefined, undefined],
      ['work', ['92dc429']],
    ]);
    const store = policy.actions[0]?.command?.objectStore;
    expect(store).toEqual({ protectedNames: true, unreachable: false, namesUnreachable: false });
    expect(Object.isFrozen(store)).toBe(true);
    expect(store).not.toBe(host.answers[0]?.objectStore);
  });

  it('refuses an answer with more paths than were asked, even from a host that grew the list it was given', async () => {
    const policy = classifyingPolicy();
    const host = resolvingHost((request) => {
      (request.paths as string[]).push('.env');
      return { files: request.paths.map((path) => hostPath(path, path)) };
    });
    const registry = createToolRegistry({ tools: [touchFiles], host, policy });
    const outcome = await registry.dispatch({ callId: 'c', name: 'touch_files', arguments: { paths: ['a.txt'] } }, { grantedTools: ['touch_files'], approval: { confirm: () => Promise.resolve({ outcome: 'approve' }) } });
    expect(outcome.ok).toBe(false);
    if (!outcome.ok) expect(outcome.error).toMatchObject({ code: 'POLICY_DENIED', reason: 'target_unavailable' });
    expect(policy.actions).toHaveLength(0);
  });

  it('refuses an answer with fewer argument paths than were asked, even from a host that emptied the list it was given', async () => {
    const policy = classifyingPolicy();
    const host = resolvingHost((request) => {
      (request.arguments as string[]).length = 0;
      return { files: [hostPath('work', 'work')], arguments: [] };
    });
    const registry = createToolRegistry({ tools: [runIn], host, policy });
    const outcome = await registry.dispatch({ callId: 'c', name: 'run_in', arguments: { cwd: 'work', command: 'cat ../secret/key' } }, { grantedTools: ['run_in'], approval: { confirm: () => Promise.resolve({ outcome: 'approve' }) } });
    expect(outcome.ok).toBe(false);
    if (!outcome.ok) expect(outcome.error).toMatchObject({ code: 'POLICY_DENIED', reason: 'target_unavailable' });
    expect(policy.actions).toHaveLength(0);
  });

  it.each([
    ['null', null, true],
    ['a number', 5, true],
    ['a string', 'a.txt', true],
    ['a string, to a policy that classifies no path', 'a.txt', false],
  ])('refuses a call whose host answers a path that is not an object (%s)', async (_label, path, classifies) => {
    const policy = classifyingPolicy();
    if (!classifies) delete (policy as { classifyPath?: unknown }).classifyPath;
    const host = resolvingHost(() => ({ files: [path as unknown as ResolvedPath] }));
    const registry = createToolRegistry({ tools: [touchFiles], host, policy });
    const outcome = await registry.dispatch({ callId: 'c', name: 'touch_files', arguments: { paths: ['a.txt'] } }, { grantedTools: ['touch_files'], approval: { confirm: () => Promise.resolve({ outcome: 'approve' }) } });
    expect(outcome.ok).toBe(false);
    if (!outcome.ok) expect(outcome.error).toMatchObject({ code: 'POLICY_DENIED', reason: 'target_unavailable' });
    expect(policy.actions).toHaveLength(0);
  });

  it('judges a spelled path without a resolving host: inside by the policy, its real path its spelling', async () => {
    const policy = classifyingPolicy();
    const registry = createToolRegistry({ tools: [touchFiles], policy });
    await registry.dispatch({ callId: 'c', name: 'touch_files', arguments: { paths: ['notes/a.md', 'secret/b'] } }, { grantedTools: ['touch_files'], approval: { confirm: () => Promise.resolve({ outcome: 'approve' }) } });
    const action = policy.actions[0];
    expect(action?.resolvedBy).toBe('lexical');
    expect(policy.classified).toEqual(['notes/a.md', 'secret/b']);
    expect(action?.files.map((file) => [file.path, file.real, file.protected, file.outside])).toEqual([
      ['notes/a.md', 'notes/a.md', false, false],
      ['secret/b', 'secret/b', true, false],
    ]);
    expect(action?.files.every((file) => Object.isFrozen(file) && !('identity' in file))).toBe(true);
  });
});

describe('resolveAction: a runner climbs from where its folder really is', () => {
  /** A host where `sub` is a link to `deep` (the real folder each answer gives), every other path where it is spelled. */
  function linkedHost(deep: () => string): ToolHost & { readonly asked: (readonly string[] | undefined)[] } {
    const asked: (readonly string[] | undefined)[] = [];
    const real = (path: string): string => (path === 'sub' ? deep() : path);
    return {
      asked,
      resolve: (request) => {
        asked.push(request.arguments === undefined ? undefined : [...request.arguments]);
        return { files: request.paths.map((path) => hostPath(path, real(path))), arguments: (request.arguments ?? []).map((path) => hostPath(path, real(path))) };
      },
    };
  }
  const npmTestIn = (host: ToolHost, policy: ToolPolicy) =>
    createToolRegistry({ tools: [runIn], host, policy }).dispatch({ callId: 'c', name: 'run_in', arguments: { cwd: 'sub', command: 'npm test' } }, { grantedTools: ['run_in'], approval: { confirm: () => Promise.resolve({ outcome: 'approve' }) } });

  it('asks the host where the folder is first, then binds the package.json of each real folder up to the workspace root', async () => {
    const policy = classifyingPolicy();
    const host = linkedHost(() => 'x/y/z');
    expect((await npmTestIn(host, policy)).ok).toBe(true);
    expect(host.asked).toEqual([['sub'], ['sub/test', 'sub', 'sub/package.json', 'sub/../package.json', 'sub/../../package.json', 'sub/../../../package.json']]);
    expect(policy.actions[0]?.command?.runnerClimbs).toEqual([3]);
  });

  it('refuses the call when the folder is at another depth by the second answer: a link re-pointed between them', async () => {
    const policy = classifyingPolicy();
    let answers = 0;
    const host = linkedHost(() => ((answers += 1) <= 1 ? 'x' : 'x/y/z'));
    const outcome = await npmTestIn(host, policy);
    expect(outcome.ok).toBe(false);
    if (!outcome.ok) expect(outcome.error).toMatchObject({ code: 'POLICY_DENIED', reason: 'target_unavailable' });
    expect(policy.actions).toHaveLength(0);
  });

  it.each([
    ['an answer with another count of folders', () => ({ files: [], arguments: [] })],
    ['an answer that is not an object', () => null as unknown as ResolvedTarget],
    ['a folder without a real path', () => ({ files: [], arguments: [{} as ResolvedPath] })],
  ])('refuses %s to the first question', async (_label, answer) => {
    const policy = classifyingPolicy();
    const outcome = await npmTestIn(resolvingHost(answer), policy);
    expect(outcome.ok).toBe(false);
    if (!outcome.ok) expect(outcome.error).toMatchObject({ code: 'POLICY_DENIED', reason: 'target_unavailable' });
    expect(policy.actions).toHaveLength(0);
  });
});
