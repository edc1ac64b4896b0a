import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { describe, it } from 'vitest';
import { rejectCutRunnerCard } from './support/pending-approval.js';
import { closeAfterEach, connectClient, serveGateway } from './support/serve-gateway.js';

// A runner that climbs (npm, pnpm, yarn, bun) reads the package.json of each folder above the one it runs in, and
// each was listed, spelled with one more `../`: `pnpm -C` a folder 4,096 deep in a working directory 2,048 deep,
// both within the tool's own limits, made thousands of names of 10 KB each, every one masked for the card, and held
// the gateway's one thread for 2 s while every other call waited. The files are now listed up to what a host
// resolves; past that the command is judged as naming a protected path, and the card says its files are not bound.

const opened = closeAfterEach();
const deep = (name: string, levels: number): string => Array<string>(levels).fill(name).join('/');

describe('attack: a climbing runner from a folder thousands deep', () => {
  it.each([
    ['npm test, 2,048 folders deep', { command: ['npm', 'test'], cwd: deep('a', 2048) }],
    ['pnpm -C 4,096 folders deep, from 2,048 deep', { command: ['pnpm', '-C', deep('b', 4096), 'test'], cwd: deep('a', 2048) }],
    ['yarn --cwd 4,096 folders deep', { command: ['yarn', '--cwd', deep('b', 4096), 'test'] }],
  ])('%s: the card lists a bounded number of files and says none is bound', async (_label, args) => {
    const gateway = opened.gateway(await serveGateway({ scope: 'workspace-write', mode: 'auto', policy: { allowedCommandGlobs: ['npm *', 'pnpm *', 'yarn *'] } }));
    const mcp: Client = opened.client((await connectClient(gateway.mcpUrl, 'attacker', undefined, gateway.auth)).client);
    await rejectCutRunnerCard(gateway, mcp, args);
  });
});
