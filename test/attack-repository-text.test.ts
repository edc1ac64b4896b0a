import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { closeAfterEach, connectClient, serveGateway } from './support/serve-gateway.js';

// After every command in a writing tier the gateway reads the configuration of each repository the workspace
// holds, nested ones a command made included, and the `commondir` file that says where it is kept. A hostile
// model's allowed command makes a nested repository whose `commondir` is a long run of line breaks and a letter:
// the gateway cut the line breaks at its end with a regular expression that tried every start of the run, in
// time the square of its length, on its one thread (a megabyte, which it reads, is half an hour). Driven through
// `toolgate serve`: the command and a read beside it must answer within seconds.

const open = closeAfterEach();

describe('attack: a nested repository whose commondir takes the gateway’s thread', () => {
  it('the command that made it, and a read beside it, answer within seconds', async () => {
    const gateway = open.gateway(
      await serveGateway(
        { scope: 'workspace-write', mode: 'auto', console: { enabled: false }, policy: { allowedCommandGlobs: ['sh *'], allow: ['Bash(sh *)'] } },
        { files: { 'notes.md': 'a\n', 'make.sh': 'git init -q sub && head -c 200000 /dev/zero | tr "\\0" "\\n" > sub/.git/commondir && printf x >> sub/.git/commondir\n' } },
      ),
    );
    execFileSync('git', ['init', '-q'], { cwd: gateway.workspace });
    const { client } = await connectClient(gateway.mcpUrl, 'attacker', undefined, gateway.auth);
    open.client(client);
    const started = Date.now();
    const made = client.callTool({ name: 'run_command', arguments: { command: ['sh', 'make.sh'] } }, undefined, { timeout: 600_000 });
    // Once the command has run and the gateway reads what it made.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const read = await client.callTool({ name: 'read_file', arguments: { path: 'notes.md' } }, undefined, { timeout: 600_000 });
    expect(read.isError).not.toBe(true);
    expect(Date.now() - started).toBeLessThan(10_000);
    await made;
    expect(Date.now() - started).toBeLessThan(15_000);
  }, 700_000);
});
