import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { decideIfAsked } from './support/pending-approval.js';
import { connectClient, makeWorkspace, serveWorkspace } from './support/serve-gateway.js';

// A hostile model against the program the configuration starts as an upstream server, named the way a runtime
// completes it: `node servers/notes` runs `servers/notes.js`, or a folder's `index.js` or the `main` of its
// package.json; `python3 -m servers.notes`, with the workspace on `PYTHONPATH`, runs `servers/notes.py`; a command by
// its name alone runs the file of that name in a folder of the workspace its declared `PATH` holds. The gateway runs
// it outside every sandbox at each start, so a model that rewrites that file by an edit the mode approves runs its
// own code there at the next start. Through `toolgate serve` and the SDK client, in accept-edits.

const UPSTREAM = fileURLToPath(new URL('fixtures/mcp/upstream-server.mjs', import.meta.url));
const NODE_SERVER = `import(${JSON.stringify(UPSTREAM)});\n`;
const NODE_PAYLOAD = `require('node:fs').writeFileSync('PWNED_BY_SERVER', 'x');\nimport(${JSON.stringify(UPSTREAM)});\n`;
const PYTHON_SERVER = `import os\nos.execvp('node', ['node', ${JSON.stringify(UPSTREAM)}])\n`;
const PYTHON_PAYLOAD = `import os\nopen('PWNED_BY_SERVER', 'w').close()\nos.execvp('node', ['node', ${JSON.stringify(UPSTREAM)}])\n`;

/** Stands for the workspace's absolute path in a declared environment (a relative PYTHONPATH is refused). */
const WORKSPACE = '<workspace>';

const cases = [
  { label: 'node servers/notes, a file node completes with .js', command: 'node', args: ['servers/notes'], file: 'servers/notes.js', server: NODE_SERVER, payload: NODE_PAYLOAD, files: {} },
  { label: 'node servers/notes, a folder whose index.js node runs', command: 'node', args: ['./servers/notes/'], file: 'servers/notes/index.js', server: NODE_SERVER, payload: NODE_PAYLOAD, files: {} },
  { label: 'node servers/notes, a folder whose package.json names its main', command: 'node', args: ['servers/notes'], file: 'servers/notes/lib/main.js', server: NODE_SERVER, payload: NODE_PAYLOAD, files: { 'servers/notes/package.json': '{"main":"lib/main"}' } },
  { label: 'python3 -m servers.notes, the workspace on PYTHONPATH', command: 'python3', args: ['-m', 'servers.notes'], env: { PYTHONPATH: WORKSPACE }, file: 'servers/notes.py', server: PYTHON_SERVER, payload: PYTHON_PAYLOAD, files: {} },
  { label: 'notes-server, found on a declared PATH folder of the workspace', command: 'notes-server', args: [], env: { PATH: `${WORKSPACE}/bin:/usr/bin:/bin` }, file: 'bin/notes-server', server: `#!${process.execPath}\n${NODE_SERVER}`, payload: `#!${process.execPath}\n${NODE_PAYLOAD}`, files: {} },
];

describe.each(cases)('attack: in accept-edits, a model rewrites the server the configuration starts as $label', ({ command, args, env, file, server, payload, files }: (typeof cases)[number] & { env?: Record<string, string> }) => {
  it('the write waits for a person as protected; rejected, the next start runs the operator\'s server', async () => {
    const workspace = makeWorkspace({}, { ...files, [file]: server });
    chmodSync(join(workspace, file), 0o755);
    const declared = env === undefined ? {} : { env: Object.fromEntries(Object.entries(env).map(([name, value]) => [name, value.replace(WORKSPACE, workspace)])) };
    writeFileSync(join(workspace, 'toolgate.config.json'), JSON.stringify({ scope: 'workspace-write', mode: 'accept-edits', servers: { notes: { command, args, ...declared } } }));
    const gateway = await serveWorkspace(workspace);
    const mcp = (await connectClient(gateway.mcpUrl, 'attacker', undefined, gateway.auth)).client;
    let asked: Awaited<ReturnType<typeof decideIfAsked>>;
    try {
      // The operator's server came up: its tools are listed.
      expect((await mcp.listTools()).tools.map((tool) => tool.name)).toContain('mcp_notes_add');
      asked = await decideIfAsked(gateway, mcp, 'write_file', { path: file, content: payload }, 'reject');
    } finally {
      await mcp.close();
      await gateway.cli.stop();
    }
    const next = await serveWorkspace(gateway.workspace);
    await next.cli.stop();
    expect(existsSync(join(gateway.workspace, 'PWNED_BY_SERVER')), `the next start ran the model's server: ${JSON.stringify(asked.result)}`).toBe(false);
    expect(asked.card?.reasons.protectedPath).toBe(true);
    expect(readFileSync(join(gateway.workspace, file), 'utf8')).toBe(server);
  }, 60_000);
});
