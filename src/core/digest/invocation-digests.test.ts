import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { actionDigestTarget } from '../action/action-digest-target.js';
import type { ResolvedAction, ResolvedPath } from '../action/resolved-action.js';
import { compileTool } from '../tools/compile-tool.js';
import { canonicalJson } from './canonical-json.js';
import { ACTION_DIGEST_SCHEMA, actionDigestText, computeInvocationDigests } from './invocation-digests.js';
import { sha256Hex } from './sha256.js';

const text = fc.string({ unit: 'binary', maxLength: 24 });
const resolvedPath = text.map((real): ResolvedPath => ({ requested: real, path: real, real, protected: false, linkTraversal: false, outside: false, created: false, hardLinked: false }));
const action: fc.Arbitrary<ResolvedAction | undefined> = fc.option(
  fc.record(
    {
      resolvedBy: fc.constantFrom('host' as const, 'lexical' as const),
      access: fc.constantFrom('read' as const, 'write' as const),
      files: fc.array(resolvedPath, { maxLength: 3 }),
      command: fc.record({ argv: fc.array(text, { maxLength: 4 }), executable: fc.constant(undefined), cwd: resolvedPath }),
      http: fc.record({ method: text, url: text }),
      mcp: fc.record({ server: text, tool: fc.option(text, { nil: undefined }) }),
      os: fc.record({ action: text }),
    },
    { requiredKeys: ['resolvedBy', 'access', 'files'] },
  ) as unknown as fc.Arbitrary<ResolvedAction>,
  { nil: undefined },
);
const tool = fc
  .record({
    name: fc.stringMatching(/^[a-z][a-z0-9_]{0,20}$/),
    version: fc.option(fc.constantFrom('1.0.0', '2.3.4-rc.1', '0.0.1'), { nil: undefined }),
    permissions: fc.uniqueArray(fc.stringMatching(/^[a-z][a-z0-9_.:-]{0,12}$/), { maxLength: 4 }),
    effect: fc.constantFrom('read' as const, 'write' as const, 'execute' as const, 'external' as const),
    risk: fc.constantFrom('low' as const, 'medium' as const, 'high' as const, 'critical' as const),
    timeoutMs: fc.option(fc.integer({ min: 1, max: 600_000 }), { nil: undefined }),
  })
  .map(({ version, timeoutMs, ...shape }) =>
    compileTool({ ...shape, ...(version === undefined ? {} : { version }), ...(timeoutMs === undefined ? {} : { timeoutMs }), description: 'd', input: { type: 'object' }, dispatch: () => null }),
  );

describe('the action digest text', () => {
  it('is exactly the canonical JSON of its members, for any tool, agent, input digest and resolved target', () => {
    fc.assert(
      fc.property(tool, fc.option(text, { nil: undefined }), fc.stringMatching(/^[0-9a-f]{64}$/), action, (compiled, agent, inputDigest, resolved) => {
        const members = {
          schema: ACTION_DIGEST_SCHEMA,
          tool: compiled.name,
          version: compiled.version ?? null,
          agent: agent ?? null,
          permissions: [...compiled.policyView.permissions].sort(),
          effect: compiled.policyView.effect,
          risk: compiled.policyView.risk,
          timeoutMs: compiled.timeoutMs ?? null,
          inputDigest,
          target: actionDigestTarget(resolved),
        };
        expect(actionDigestText(compiled, agent, inputDigest, resolved)).toBe(canonicalJson(members));
        // Asked twice (the tool's fixed members are then cached): the same text.
        expect(actionDigestText(compiled, agent, inputDigest, resolved)).toBe(canonicalJson(members));
      }),
      { numRuns: 300 },
    );
  });

  it('hashes to the same digests with Web Crypto as before the text was assembled from parts', async () => {
    const compiled = compileTool({ name: 'write_note', version: '1.2.0', description: 'd', input: { type: 'object' }, permissions: ['notes.write'], dispatch: () => null });
    const digests = await computeInvocationDigests(compiled, 'alice', { path: 'a', content: 'b' });
    expect(digests.inputDigest).toBe(await sha256Hex(canonicalJson({ path: 'a', content: 'b' })));
    const members = { schema: ACTION_DIGEST_SCHEMA, tool: 'write_note', version: '1.2.0', agent: 'alice', permissions: ['notes.write'], effect: compiled.policyView.effect, risk: compiled.policyView.risk, timeoutMs: null, inputDigest: digests.inputDigest, target: null };
    expect(digests.actionDigest).toBe(await sha256Hex(canonicalJson(members)));
  });
});
