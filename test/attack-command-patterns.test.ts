import { describe, expect, it } from 'vitest';
import { closeAfterEach, connectClient, serveGateway } from './support/serve-gateway.js';

// An operator's rule with two wildcards and words after them (`Bash(git * -m * --amend)`: ask before a commit is
// amended) is read against the command line of every call. A hostile model sends `git` with arguments full of the
// rule's middle word and without its last: the rule's pattern, a backtracking regular expression, took time in the
// square of the line (with a third wildcard, its cube) on the gateway's one thread, and every other call, client
// and approval waited. Driven through `toolgate serve`: a read beside such a call must
// answer at once (before: after 2.4 s for one such call, 10 s for four), and the rule must still ask for what it names.

const open = closeAfterEach();

describe('attack: a command line that makes a rule with two wildcards take the gateway’s thread', () => {
  it('a read beside the call answers within seconds, and the rule still reads what it names', async () => {
    const gateway = open.gateway(
      await serveGateway(
        { scope: 'workspace-write', mode: 'auto', console: { enabled: false }, policy: { allowedCommandGlobs: ['git *'], allow: ['Bash(git *)'], ask: ['Bash(git * -m * --amend)'] } },
        { files: { 'notes.md': 'a\n' } },
      ),
    );
    const { client } = await connectClient(gateway.mcpUrl, 'attacker', undefined, gateway.auth);
    open.client(client);
    const started = Date.now();
    // Options, so the host resolves none of them as a path; within the 64 KiB a call's arguments may hold. Four at once.
    const line = ['git', ...Array.from({ length: 7 }, () => `--x${' -m'.repeat(2700)}`), 'x'];
    const heavy = Promise.all(Array.from({ length: 4 }, () => client.callTool({ name: 'run_command', arguments: { command: line } }, undefined, { timeout: 120_000 })));
    const read = await client.callTool({ name: 'read_file', arguments: { path: 'notes.md' } }, undefined, { timeout: 120_000 });
    expect(read.isError).not.toBe(true);
    expect(Date.now() - started).toBeLessThan(3_000);
    await heavy;
    expect(Date.now() - started).toBeLessThan(5_000);
    // The rule still asks (here: no one to ask, so the call is refused) for an amend it names.
    const amend = await client.callTool({ name: 'run_command', arguments: { command: ['git', 'commit', '-m', 'msg', '--amend'] } });
    expect(amend.isError).toBe(true);
    expect(JSON.stringify(amend.content)).toMatch(/approv|ask|person/i);
  }, 240_000);
});
