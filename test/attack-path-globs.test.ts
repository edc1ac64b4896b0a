import { describe, expect, it } from 'vitest';
import { closeAfterEach, connectClient, serveGateway } from './support/serve-gateway.js';

// An operator's path rule with several wildcards (`Read(**/*a*a*b)`, `Write(**/a/**/b/**/c)`) or protected path
// (`*q*q*z`, `**/q/**/r/**/z`) is read against the path of every call. Matched by backtracking regular expressions,
// one read of 4,000 `a`s would hold the gateway's thread 20 s, a path of 2,000 `q/r` folders 4.8 s. Each glob is
// matched by an automaton that keeps every live state at once: a hostile path full of a rule's letters and without
// its last costs its length times the pattern's, a read beside it answers at once, and the rules still decide what
// they name.

const open = closeAfterEach();

const text = (result: object): string => JSON.stringify('content' in result ? result.content : result);

describe('attack: a path that makes a path rule with many wildcards take the gateway’s thread', () => {
  it('a read beside the calls answers within seconds, and each rule still decides what it names', async () => {
    const gateway = open.gateway(
      await serveGateway(
        {
          scope: 'workspace-write',
          mode: 'auto',
          console: { enabled: false },
          policy: { allow: ['Write'], deny: ['Read(**/*a*a*b)', 'Read(**/*a*a*b*c)'], ask: ['Write(**/a/**/b/**/c)'], protectedPaths: ['*q*q*z', '**/q/**/r/**/z'] },
        },
        { files: { 'notes.md': 'a\n' } },
      ),
    );
    const { client } = await connectClient(gateway.mcpUrl, 'attacker', undefined, gateway.auth);
    open.client(client);
    const call = (name: string, args: Record<string, unknown>) => client.callTool({ name, arguments: args }, undefined, { timeout: 120_000 });
    const started = Date.now();
    // One name of 4,000 letters (each wildcard of the rule may take any run of it), and 1,100 folders for the `**`s.
    const heavy = Promise.all([
      call('read_file', { path: 'a'.repeat(4000) }),
      call('read_file', { path: `x/${'a'.repeat(4000)}` }),
      // Holding every letter a rule's glob needs, its last one last: only the automaton can say no.
      call('read_file', { path: `b${'a'.repeat(4000)}c` }),
      call('read_file', { path: `z/${'q/r/'.repeat(1000)}x` }),
      call('write_file', { path: `${'a/b/'.repeat(1100)}x`, content: 'x' }),
      call('write_file', { path: 'q'.repeat(4000), content: 'x' }),
      call('read_file', { path: `${'q/r/'.repeat(1000)}x` }),
    ]);
    const read = await call('read_file', { path: 'notes.md' });
    expect(read.isError).not.toBe(true);
    expect(Date.now() - started).toBeLessThan(3_000);
    const answers = await heavy;
    expect(Date.now() - started).toBeLessThan(5_000);
    // None of the hostile paths is one a rule names: none is refused by a rule (each fails later: a name too long).
    for (const answer of answers) {
      expect(answer.isError).toBe(true);
      expect(text(answer)).not.toMatch(/policy rule|approv|protected/i);
    }
    // The rules still decide for the paths they name (as long as a file system takes them).
    const denied = await call('read_file', { path: `x/${'a'.repeat(200)}B` });
    expect(denied.isError).toBe(true);
    expect(text(denied)).toMatch(/refused by policy rule .*Read\(\*\*\/\*a\*a\*b\)/);
    const asked = await call('write_file', { path: `${'a/b/'.repeat(20)}c`, content: 'x' });
    expect(asked.isError).toBe(true);
    expect(text(asked)).toMatch(/needs an approval/);
    const guarded = await call('write_file', { path: `${'q'.repeat(200)}z`, content: 'x' });
    expect(guarded.isError).toBe(true);
    expect(text(guarded)).toMatch(/needs an approval/);
    const below = await call('write_file', { path: 'q/x/r/y/z', content: 'x' });
    expect(below.isError).toBe(true);
    expect(text(below)).toMatch(/needs an approval/);
    // And what they do not name goes through.
    for (const path of [`${'q'.repeat(200)}.md`, 'q/x/r/y/w', `${'a/b/'.repeat(20)}d`]) {
      const written = await call('write_file', { path, content: 'x' });
      expect(written.isError, path).not.toBe(true);
    }
    expect(Date.now() - started).toBeLessThan(10_000);
  }, 240_000);
});
