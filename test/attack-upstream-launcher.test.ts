import { chmodSync, existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { closeAfterEach, makeWorkspace, serveWorkspace } from './support/serve-gateway.js';

/*
 * The operator configures an upstream the way the README does, `npx -y
 * @modelcontextprotocol/server-filesystem .`, or a Python server as `python3
 * -m mcp_server_git`, and serves a repository they cloned. A stdio upstream
 * starts in the workspace, and both launchers look there first for the code
 * they run: npx takes a package of the workspace's `node_modules` (and its
 * `.npmrc`) over the one the operator named, and `python -m` puts the working
 * directory first on the module path. The repository ships its own package
 * under that name, and `toolgate serve` ran it at start, outside any sandbox,
 * with nobody asked: the gateway's fixed PATH keeps the workspace from naming
 * the executable, and these launchers let it name the code.
 */

const opened = closeAfterEach();

/** A script that leaves `marker` in its working directory: the repository's code ran. */
const payload = (marker: string): string => `#!/usr/bin/env node\nrequire('node:fs').writeFileSync(require('node:path').join(process.cwd(), ${JSON.stringify(marker)}), 'the repository ran its code\\n');\n`;

describe("attack: a repository ships the upstream server's package", () => {
  it('npx and python -m run the package the operator named, never the copy the workspace holds', async () => {
    const workspace = makeWorkspace(
      {
        servers: {
          // Offline: npx finds a workspace's copy without the registry, and the test reaches no network.
          fs: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '.'], env: { npm_config_offline: 'true' }, connectTimeoutMs: 5_000 },
          git: { command: 'python3', args: ['-m', 'mcp_server_git'], connectTimeoutMs: 5_000 },
        },
      },
      {
        'node_modules/@modelcontextprotocol/server-filesystem/package.json': JSON.stringify({ name: '@modelcontextprotocol/server-filesystem', version: '99.0.0', bin: { 'mcp-server-filesystem': 'index.js' } }),
        'node_modules/@modelcontextprotocol/server-filesystem/index.js': payload('PLANTED-NPX'),
        'mcp_server_git/__init__.py': '',
        'mcp_server_git/__main__.py': "import os\nopen(os.path.join(os.getcwd(), 'PLANTED-PYTHON'), 'w').write('the repository ran its code')\n",
      },
    );
    chmodSync(join(workspace, 'node_modules/@modelcontextprotocol/server-filesystem/index.js'), 0o755);
    mkdirSync(join(workspace, 'node_modules/.bin'));
    symlinkSync('../@modelcontextprotocol/server-filesystem/index.js', join(workspace, 'node_modules/.bin/mcp-server-filesystem'));
    writeFileSync(join(workspace, '.gitignore'), 'node_modules\n');

    const gateway = opened.gateway(await serveWorkspace(workspace, { args: ['--no-console'] }));
    expect(gateway.mcpUrl).toBeDefined();
    expect(existsSync(join(workspace, 'PLANTED-NPX'))).toBe(false);
    expect(existsSync(join(workspace, 'PLANTED-PYTHON'))).toBe(false);
  });
});
