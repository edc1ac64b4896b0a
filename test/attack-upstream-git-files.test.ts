import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './fixtures/mcp/helpers.js';
import { closeAfterEach, connectClient, serveGateway } from './support/serve-gateway.js';

// A hostile model with the git reference server (`mcp-server-git`), whose `git_add` an operator lets run: the
// server stages the files it is named with GitPython's `index.add`, which reads any file under the repository,
// ignored ones included, and `git_diff_staged` then shows what it read. The gateway judged `repo_path` alone,
// so `files` reached the server unjudged: `.toolgate/http-token` (the gateway's own, which no tool may read),
// the console's locator and `.env` came back in the staged diff with no card. Each file is now judged where the
// server reads it, against the repository, like a path argument of any built-in tool; and since the server reads
// a folder it is named whole and expands glob characters, an entry must name one file. The server also passes
// `branch_name` and `target` to the git command line, where a leading `-` is an option that reads or writes a file.

const REFERENCE = join(ROOT, 'test/fixtures/mcp/reference-servers.mjs');
const SECRET = 'TOOLGATE_GIT_FILES_SECRET=hunter2-do-not-leak';
const open = closeAfterEach();
const text = (result: object): string => JSON.stringify((result as { content?: unknown }).content);

describe('attack: git_add of the mcp-server-git reference server names the files it reads', () => {
  it('stages an ordinary file, and neither the gateway token nor .env, however spelled, reaches the server', async () => {
    const log = join(realpathSync(mkdtempSync(join(tmpdir(), 'toolgate-git-files-log-'))), 'calls.jsonl');
    appendFileSync(log, '');
    const gateway = open.gateway(
      await serveGateway(
        {
          scope: 'workspace-write',
          mode: 'auto',
          console: { enabled: false },
          servers: { git: { command: process.execPath, args: [REFERENCE, 'mcp-server-git', '--log', log] } },
          policy: { allow: ['mcp__git__git_add', 'mcp__git__git_diff_staged'] },
        },
        { files: { '.env': `${SECRET}\n`, 'notes.md': 'ordinary\n', 'sub/readme.md': 'nested\n' } },
      ),
    );
    mkdirSync(join(gateway.workspace, 'sub', 'deeper'));
    const token = readFileSync(join(gateway.workspace, '.toolgate', 'http-token'), 'utf8').trim();
    const { client } = await connectClient(gateway.mcpUrl, 'attacker', undefined, gateway.auth);
    open.client(client);
    const add = (repo: string, files: string[]) => client.callTool({ name: 'mcp_git_git_add', arguments: { repo_path: repo, files } });

    const ordinary = await add('.', ['notes.md']);
    expect(ordinary.isError, text(ordinary)).not.toBe(true);
    const attempts: [string, string[]][] = [
      ['.', ['.toolgate/http-token']],
      ['.', ['notes.md', '.toolgate/console.json']],
      ['.', ['.env']],
      ['.', [join(gateway.workspace, '.env')]],
      ['sub', ['../.env']],
      ['sub', ['../.toolgate/http-token']],
      ['sub/deeper', ['../../.toolgate/http-token']],
      // A folder is read whole and a glob expanded, ignored and protected files included.
      ['.', ['./']],
      ['.', ['.']],
      ['sub', ['..']],
      ['.', ['.tool*/http-token']],
      ['.', ['.en[v]']],
    ];
    for (const [repo, files] of attempts) {
      const refused = await add(repo, files);
      expect(refused.isError, `${repo} ${JSON.stringify(files)}: ${text(refused)}`).toBe(true);
    }
    const diff = text(await client.callTool({ name: 'mcp_git_git_diff_staged', arguments: { repo_path: '.' } }));
    expect(diff).toContain('ordinary');
    expect(diff).not.toContain(token);
    expect(diff).not.toContain('hunter2');
    const reached = readFileSync(log, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { tool: string; args: { files?: string[] } });
    expect(reached.filter((call) => call.tool === 'git_add').map((call) => call.args.files)).toEqual([['notes.md']]);
  }, 30_000);
});

describe('attack: an option where mcp-server-git passes a name to the git command line', () => {
  it('git_checkout --pathspec-from-file=.toolgate/http-token, whose error names each line of the file, and git_diff --output= never reach the server', async () => {
    const log = join(realpathSync(mkdtempSync(join(tmpdir(), 'toolgate-git-files-log-'))), 'calls.jsonl');
    appendFileSync(log, '');
    const gateway = open.gateway(
      await serveGateway({
        scope: 'workspace-write',
        mode: 'auto',
        console: { enabled: false },
        servers: { git: { command: process.execPath, args: [REFERENCE, 'mcp-server-git', '--log', log] } },
        policy: { allow: ['mcp__git__git_checkout', 'mcp__git__git_diff'] },
      }),
    );
    const token = readFileSync(join(gateway.workspace, '.toolgate', 'http-token'), 'utf8').trim();
    const { client } = await connectClient(gateway.mcpUrl, 'attacker', undefined, gateway.auth);
    open.client(client);
    const branch = await client.callTool({ name: 'mcp_git_git_checkout', arguments: { repo_path: '.', branch_name: 'main' } });
    expect(branch.isError, text(branch)).not.toBe(true);
    const calls: [string, Record<string, string>][] = [
      ['mcp_git_git_checkout', { repo_path: '.', branch_name: '--pathspec-from-file=.toolgate/http-token' }],
      ['mcp_git_git_checkout', { repo_path: '.', branch_name: '-' }],
      ['mcp_git_git_diff', { repo_path: '.', target: '--output=.toolgate/policy.json' }],
    ];
    for (const [name, args] of calls) {
      const refused = await client.callTool({ name, arguments: args });
      expect(refused.isError, `${name} ${JSON.stringify(args)}: ${text(refused)}`).toBe(true);
      expect(text(refused)).not.toContain(token);
    }
    const reached = readFileSync(log, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { tool: string });
    expect(reached.map((call) => call.tool)).toEqual(['git_checkout']);
  }, 30_000);
});
