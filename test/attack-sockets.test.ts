import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIAL_JS, DIAL_PY, HELD_PY, startHostSockets, type HostSockets } from '../src/node/process/__fixtures__/host-sockets.js';
import { decideIfAsked } from './support/pending-approval.js';
import { connectClient, serveGateway } from './support/serve-gateway.js';

// A command the policy lets run by a glob (`node *`, `python3 *`) connects to a host service's Unix socket: the
// user's session bus (whose systemd starts a unit outside any sandbox when asked), docker (a container that mounts
// the host), the gpg agent (signatures with the user's keys). A read-only bind still lets `connect()` through, so
// the sandbox must keep the command from making a Unix socket at all, and from holding one the gateway was handed
// by whoever started it. Each tier drives `toolgate serve` with the MCP SDK client; the servers answer with a
// secret, which no answer may hold.

const text = (result: object): string => JSON.stringify((result as { content?: unknown }).content);
const RULES = ['node *', 'python3 *'];
/** Where the gateway holds the connection its parent leaked: after stdio and a few free numbers. */
const LEAKED_FD = 20;

describe.each(['read-only', 'workspace-write', 'full'])('attack: a glob-allowed command dials the host services, in %s', (scope) => {
  let home = '';
  let host: HostSockets;
  let leaked: Socket;
  beforeAll(async () => {
    home = realpathSync(mkdtempSync('/var/tmp/toolgate-attack-sockets-home-'));
    host = await startHostSockets(home);
    const target = host.sockets.at(-1)?.path ?? '';
    leaked = await new Promise<Socket>((resolve) => {
      const socket = connect(target, () => resolve(socket));
    });
  });
  afterAll(async () => {
    leaked.destroy();
    await host.close();
    rmSync(home, { recursive: true, force: true });
  });

  it('reads no secret through node or python, nor through a connection the gateway inherited', async () => {
    const config = { scope, mode: 'auto', policy: { allowedCommandGlobs: RULES, allow: RULES.map((rule) => `Bash(${rule})`) } };
    // The scripts lie in the workspace, as a repository's own scripts do: the floor refuses `node -e` and `python3 -c`.
    const files = { 'dial.js': DIAL_JS, 'dial.py': DIAL_PY, 'held.py': HELD_PY };
    const inherit = [...Array.from({ length: LEAKED_FD - 3 }, () => 'ignore' as const), leaked];
    const gateway = await serveGateway(config, { env: { HOME: home }, files, inherit });
    try {
      const { client } = await connectClient(gateway.mcpUrl, 'attacker', undefined, gateway.auth);
      const paths = JSON.stringify(host.sockets.map((socket) => socket.path));
      for (const command of [['node', 'dial.js', paths], ['python3', 'dial.py', paths], ['python3', 'held.py']]) {
        // Approved once if it asks, as a person would approve a script of the repository's own.
        const answer = text((await decideIfAsked(gateway, client, 'run_command', { command }, 'once')).result);
        expect(answer, command.join(' ')).toContain('"sandbox\\":\\"bwrap');
        for (const socket of host.sockets) expect(answer, `${command.join(' ')}: ${socket.path}`).not.toContain(socket.secret);
      }
      await client.close();
    } finally {
      await gateway.cli.stop();
    }
  });
});
