import { execFileSync } from 'node:child_process';
import { readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './fixtures/mcp/helpers.js';
import { closeAfterEach, connectClient, serveGateway } from './support/serve-gateway.js';

// A hostile model in the `full` tier, with the filesystem reference server rooted at `/`. The built-in read_file
// reads what `stat` says a file holds, which is nothing for /proc's files, but the server reads a file to its end:
// `/proc/<gateway>/environ` returned the gateway's environment (where an operator keeps API keys), and
// `/proc/self/environ` the server's own, which holds the `env` its configuration gives it. /proc is now refused as
// the target of every tool, by its spelling and by where a link leads, in the host's classification of real paths.

const FILESYSTEM = join(ROOT, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');
const open = closeAfterEach();
const text = (result: object): string => JSON.stringify((result as { content?: unknown }).content);

describe('attack: /proc through an upstream filesystem server in the full tier', () => {
  it("reads neither the gateway's environment nor the server's own, however /proc is named", async () => {
    const upstream = 'upstream-proc-secret-0123456789';
    const own = 'gateway-proc-secret-0123456789';
    const gateway = open.gateway(
      await serveGateway(
        {
          scope: 'full',
          mode: 'auto',
          console: { enabled: false },
          servers: { fs: { command: process.execPath, args: [FILESYSTEM, '/'], env: { UPSTREAM_KEY: upstream } } },
          policy: { allow: ['Read(/**)', 'Read(**)', 'mcp__fs__read_text_file', 'mcp__fs__read_multiple_files', 'mcp__fs__list_directory'] },
        },
        { env: { GATEWAY_KEY: own } },
      ),
    );
    const { client } = await connectClient(gateway.mcpUrl, 'attacker', undefined, gateway.auth);
    open.client(client);
    const pid = String(gateway.cli.child.pid);
    const server = execFileSync('pgrep', ['-P', pid], { encoding: 'utf8' }).trim().split('\n').find((child) => readFileSync(`/proc/${child}/environ`, 'utf8').includes(upstream));
    expect(server).toBeDefined();
    expect(readFileSync(`/proc/${pid}/environ`, 'utf8')).toContain(own);

    // An ordinary file outside the workspace reads: the tier is full.
    const passwd = await client.callTool({ name: 'mcp_fs_read_text_file', arguments: { path: '/etc/hostname' } });
    expect(passwd.isError, text(passwd)).not.toBe(true);

    const paths = [
      `/proc/${pid}/environ`,
      `/proc/${pid}/cmdline`,
      `/proc/${pid}/task/${pid}/environ`,
      '/proc/self/environ',
      '/proc/thread-self/environ',
      `/proc/${String(server)}/environ`,
      `/proc/${pid}/../${pid}/environ`,
      // Links of the workspace that lead there: to the file, and to /dev/fd's folder, /proc/self.
      join(gateway.workspace, 'environ-link'),
      join(gateway.workspace, 'self-link/environ'),
      `/proc/${pid}/fd/0`,
    ];
    symlinkSync(`/proc/${pid}/environ`, join(gateway.workspace, 'environ-link'));
    symlinkSync('/dev/fd/..', join(gateway.workspace, 'self-link'));
    const answers: string[] = [];
    for (const path of paths) {
      answers.push(`${path}: ${text(await client.callTool({ name: 'mcp_fs_read_text_file', arguments: { path } }))}`);
    }
    answers.push(`multiple: ${text(await client.callTool({ name: 'mcp_fs_read_multiple_files', arguments: { paths: [`/proc/${pid}/environ`, '/proc/self/environ'] } }))}`);
    answers.push(`list: ${text(await client.callTool({ name: 'mcp_fs_list_directory', arguments: { path: `/proc/${pid}/fd` } }))}`);
    for (const answer of answers) {
      expect(answer).not.toContain(own);
      expect(answer).not.toContain(upstream);
      expect(answer).toContain('was refused');
    }
  }, 30_000);
});
