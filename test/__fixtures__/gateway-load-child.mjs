// The gateway `toolgate serve --http` runs (openGateway, then serveMcp over HTTP with a bearer token), in a
// process of its own started with --expose-gc, so its heap is measured apart from the clients that load it.
// argv: <workspace> <token>. Prints {"url"} once serving; answers "stats" on stdin with one JSON line after a
// full collection: heap, sessions, subscriptions, pending approvals, live timers, open connections.
import { createInterface } from 'node:readline';
import { loadConfig } from '../../dist/cli/config/load-config.js';
import { openGateway } from '../../dist/cli/runtime/open-gateway.js';
import { serveMcp } from '../../dist/mcp/index.js';

const [workspace, token] = process.argv.slice(2);
const gateway = await openGateway(loadConfig(workspace));
const mcp = await serveMcp(gateway.live, {
  // The load opens 200 sessions at once: above the default cap of 64.
  transport: { kind: 'http', port: 0, token, maxSessions: 256 },
  context: { ...gateway.context, runId: 'load' },
  controller: gateway.controller,
  name: 'toolgate',
});

const approvals = { requested: 0, withdrawn: 0 };
gateway.approvals.subscribe((change) => {
  if (change.type === 'added') approvals.requested += 1;
  else if (change.outcome === 'withdrawn') approvals.withdrawn += 1;
});

const settle = () => new Promise((resolve) => setImmediate(resolve));
async function stats() {
  // Several passes with turns of the event loop between them, so finalizers and weak references settle.
  for (let pass = 0; pass < 6; pass += 1) {
    globalThis.gc();
    await settle();
  }
  const resources = process.getActiveResourcesInfo();
  const timers = resources.filter((kind) => kind === 'Timeout').length;
  // Connections the clients keep alive for their next request: the gateway holds them, and nothing of the requests they carried.
  const connections = resources.filter((kind) => kind === 'TCPSocketWrap').length;
  return { heapUsed: process.memoryUsage().heapUsed, ...mcp.stats(), pendingApprovals: gateway.approvals.pending().length, approvals: { ...approvals }, timers, connections };
}

createInterface({ input: process.stdin }).on('line', (line) => {
  if (line === 'stats') void stats().then((value) => process.stdout.write(`${JSON.stringify(value)}\n`));
  if (line === 'close') void mcp.close().then(() => gateway.close()).then(() => process.exit(0));
});
process.stdout.write(`${JSON.stringify({ url: mcp.url })}\n`);
