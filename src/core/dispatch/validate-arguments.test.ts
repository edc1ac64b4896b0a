import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../tools/define-tool.js';
import { harness } from './__fixtures__/pipeline-fixtures.js';

/** Stage 6 through `registry.dispatch`: the direct validator's walk, and what a refusal says. */
describe('stage 6: validating the effective arguments', () => {
  it('a zod object schema is checked, copied and measured in one walk; what that walk does not accept, zod decides', async () => {
    const received: unknown[] = [];
    const tool = defineTool({
      name: 'tag',
      description: 'Tag.',
      input: z.object({ path: z.string(), tags: z.array(z.string()), note: z.string().min(3).optional() }),
      dispatch: (args) => {
        received.push(args);
        return 'ok';
      },
    });
    const registry = harness([tool], { limits: { maxInputBytes: 1024 } }).registry;
    const context = { grantedTools: ['tag'] };
    const args = { tags: ['a'], path: 'x.txt' };

    const accepted = await registry.dispatch({ callId: '1', name: 'tag', arguments: args }, context);
    expect(accepted.ok).toBe(true);
    expect(received[0]).toEqual({ path: 'x.txt', tags: ['a'] });
    expect(received[0]).not.toBe(args);
    expect((received[0] as typeof args).tags).not.toBe(args.tags);

    // An unknown key: zod strips it. A failed check: zod reports it, by path.
    const stripped = await registry.dispatch({ callId: '2', name: 'tag', arguments: { ...args, extra: 1 } }, context);
    expect(stripped.ok && received[1]).toEqual({ path: 'x.txt', tags: ['a'] });
    const short = await registry.dispatch({ callId: '3', name: 'tag', arguments: '{"path":"x","tags":[],"note":"no"}' }, context);
    expect(!short.ok && short.error.code).toBe('ARGS_INVALID');
    expect(!short.ok && short.error.message).toContain('note');

    // The size limit and the JSON checks hold either way, with the same errors as before.
    const huge = await registry.dispatch({ callId: '4', name: 'tag', arguments: { path: 'x'.repeat(4096), tags: [] } }, context);
    expect(!huge.ok && huge.error.message).toContain('exceed 1024 bytes');
    const notFinite = await registry.dispatch({ callId: '5', name: 'tag', arguments: { path: 'x', tags: [], extra: Number.NaN } }, context);
    expect(!notFinite.ok && notFinite.error.message).toContain('a number is not finite');
    expect(received).toHaveLength(2);
  });

  it('a JSON Schema tool runs only on what the checked copy holds: a member no key names, or a class instance, is refused', async () => {
    const received: unknown[] = [];
    const tool = defineTool({
      name: 'remove',
      description: 'Remove.',
      input: { type: 'object', required: ['path'], properties: { path: { type: 'string' }, force: { type: 'boolean' } } },
      dispatch: (args) => {
        received.push(args);
        return 'ok';
      },
    });
    const { registry } = harness([tool]);
    const context = { grantedTools: ['remove'] };
    // JSON.stringify of it is `{}`: a path no serialisation, log or approval would show.
    const hidden = Object.defineProperty({ force: undefined }, 'path', { value: '/etc/passwd', enumerable: false });
    const refused = await registry.dispatch({ callId: '1', name: 'remove', arguments: hidden }, context);
    expect(!refused.ok && refused.error.code).toBe('ARGS_INVALID');
    let getterRan = false;
    class Arguments {
      get path(): string {
        getterRan = true;
        throw new Error('a getter of a class instance ran');
      }
    }
    const instance = await registry.dispatch({ callId: '2', name: 'remove', arguments: new Arguments() }, context);
    expect(!instance.ok && instance.error.code).toBe('ARGS_INVALID');
    expect(getterRan).toBe(false);
    expect(received).toEqual([]);
    const plain = await registry.dispatch({ callId: '3', name: 'remove', arguments: { path: 'notes.txt' } }, context);
    expect(plain.ok).toBe(true);
    expect(received).toEqual([{ path: 'notes.txt' }]);
  });

  it('an error names the declared field, never a key or value the caller invented', async () => {
    const tool = defineTool({
      name: 'env',
      description: 'Env.',
      input: z.object({ settings: z.object({ timeout: z.number() }), variables: z.record(z.string(), z.number()) }),
      dispatch: () => 'ok',
    });
    const { registry } = harness([tool]);
    const secretKey = 'sk-live-0123456789abcdef';
    const outcome = await registry.dispatch({ callId: 'c', name: 'env', arguments: { settings: { timeout: 'soon' }, variables: { [secretKey]: 'x' } } }, { grantedTools: ['env'] });
    expect(!outcome.ok && outcome.error.code).toBe('ARGS_INVALID');
    const message = !outcome.ok ? outcome.error.message : '';
    expect(message).toContain('settings.timeout');
    expect(message).toContain('variables.?');
    expect(message).not.toContain(secretKey);
    expect(message).not.toContain('soon');
  });
});
