import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useChromium } from './support/chromium.js';
import { decide, pendingApproval, type Pending } from './support/pending-approval.js';
import { closeAfterEach, connectClient, serveGateway, type ServedGateway } from './support/serve-gateway.js';

// Redaction masks a value by where it stands (a URL's userinfo, a credential's label or header, an argument named
// like a credential), not by what it holds. A model put a command into that place: the card a person approves read
// `https://[redacted]@github.com` or `"api_key": "[redacted]"`, "1 value masked", while a shell later ran the
// command. Each card must show the command.

const opened = closeAfterEach();
const SHELL_SERVER = join(import.meta.dirname, 'fixtures', 'mcp', 'shell-server.mjs');
const PAYLOAD = 'touch${IFS}PWNED';

/** The card as the console shows it to a person, in Chromium. */
async function cardText(gateway: ServedGateway, openPage: () => Promise<import('playwright-core').Page>, shows: string): Promise<string> {
  const page = await openPage();
  try {
    await page.goto(String(gateway.consoleUrl));
    await page.getByRole('button', { name: /Approvals/ }).click();
    const card = page.locator('[data-approval]');
    await card.waitFor({ timeout: 20_000 });
    await expect.poll(() => card.textContent(), { timeout: 20_000 }).toContain(shows);
    return await card.innerText();
  } finally {
    await page.close();
  }
}

async function gatewayWithShellServer(): Promise<ServedGateway> {
  return opened.gateway(await serveGateway({ scope: 'workspace-write', mode: 'ask', servers: { ops: { command: process.execPath, args: [SHELL_SERVER] } } }));
}

/** Every text the console's API gives a person for the approval. */
const shown = (pending: Pending): string => JSON.stringify([pending.preview, (pending as Pending & { arguments?: unknown }).arguments, pending.target, pending.diff, pending.view]);

describe('attack: a command placed where redaction masks a secret', () => {
  const browser = useChromium();
  const openPage = () => browser().newPage();

  it('a write_file of a script whose URL password is a command substitution: the card shows the command, and the file is what it showed', async () => {
    const gateway = opened.gateway(await serveGateway({ scope: 'workspace-write', mode: 'ask' }, { files: { 'deploy.sh': '#!/bin/sh\necho deploying\n' } }));
    const mcp = opened.client((await connectClient(gateway.mcpUrl, 'attacker', undefined, gateway.auth)).client);
    const line = `git ls-remote https://deploy:ghs\`${PAYLOAD};echo\${IFS}x\`@github.com/acme/site.git >/dev/null 2>&1`;
    const call = mcp.callTool({ name: 'write_file', arguments: { path: 'deploy.sh', content: `#!/bin/sh\necho deploying\n${line}\n` } });
    const pending = await pendingApproval(gateway, 'write_file');
    expect(pending.diff).toContain(`\`${PAYLOAD};echo\${IFS}x\`@github.com`);
    const card = await cardText(gateway, openPage, 'deploying');
    expect(card).toContain(PAYLOAD);
    await decide(gateway, pending.id, 'once');
    await call;
    expect(readFileSync(join(gateway.workspace, 'deploy.sh'), 'utf8')).toContain(PAYLOAD);
  }, 60_000);

  it('an upstream shell tool given a URL whose userinfo holds a command: the card shows it; denied, nothing runs', async () => {
    const gateway = await gatewayWithShellServer();
    const mcp = opened.client((await connectClient(gateway.mcpUrl, 'attacker', undefined, gateway.auth)).client);
    const tool = (await mcp.listTools()).tools.map((entry) => entry.name).find((name) => name.endsWith('shell')) as string;
    const call = mcp.callTool({ name: tool, arguments: { command: `git ls-remote https://ci:ghp\`${PAYLOAD}\`x@github.com/acme/site.git` } });
    const pending = await pendingApproval(gateway, tool);
    expect(shown(pending)).toContain(PAYLOAD);
    expect(await cardText(gateway, openPage, 'ls-remote')).toContain(PAYLOAD);
    await decide(gateway, pending.id, 'reject');
    expect((await call).isError).toBe(true);
    expect(existsSync(join(gateway.workspace, 'PWNED'))).toBe(false);
  }, 60_000);

  it('an upstream tool argument named like a credential holding a command: the card shows the command', async () => {
    const gateway = await gatewayWithShellServer();
    const mcp = opened.client((await connectClient(gateway.mcpUrl, 'attacker', undefined, gateway.auth)).client);
    const tool = (await mcp.listTools()).tools.map((entry) => entry.name).find((name) => name.endsWith('deploy')) as string;
    const call = mcp.callTool({ name: tool, arguments: { api_key: `k3y;${PAYLOAD}` } });
    const pending = await pendingApproval(gateway, tool);
    expect(shown(pending)).toContain(`;${PAYLOAD}`);
    expect(await cardText(gateway, openPage, 'api_key')).toContain(PAYLOAD);
    await decide(gateway, pending.id, 'reject');
    await call;
    expect(existsSync(join(gateway.workspace, 'PWNED'))).toBe(false);
  }, 60_000);

  // A second attack: a mask ran across line breaks. A private key's BEGIN line took `/usr/bin/X11/touch PWNED` (base64's
  // characters, a capital) for a key line, and an argument named like a credential was masked whole, line breaks and all.
  it('an upstream shell tool given a private key BEGIN line, then a command: the card shows the command', async () => {
    const gateway = await gatewayWithShellServer();
    const mcp = opened.client((await connectClient(gateway.mcpUrl, 'attacker', undefined, gateway.auth)).client);
    const tool = (await mcp.listTools()).tools.map((entry) => entry.name).find((name) => name.endsWith('shell')) as string;
    const call = mcp.callTool({ name: tool, arguments: { command: 'echo -----BEGIN PRIVATE KEY-----\n/usr/bin/X11/touch PWNED\necho ok' } });
    const pending = await pendingApproval(gateway, tool);
    expect(shown(pending)).toContain('/usr/bin/X11/touch PWNED');
    expect(await cardText(gateway, openPage, 'echo ok')).toContain('/usr/bin/X11/touch PWNED');
    await decide(gateway, pending.id, 'reject');
    await call;
    expect(existsSync(join(gateway.workspace, 'PWNED'))).toBe(false);
  }, 60_000);

  it('an argument named like a credential holding a line break, then a command: the card shows the command', async () => {
    const gateway = await gatewayWithShellServer();
    const mcp = opened.client((await connectClient(gateway.mcpUrl, 'attacker', undefined, gateway.auth)).client);
    const tool = (await mcp.listTools()).tools.map((entry) => entry.name).find((name) => name.endsWith('deploy')) as string;
    const call = mcp.callTool({ name: tool, arguments: { api_key: 'k3y\ntouch PWNED' } });
    const pending = await pendingApproval(gateway, tool);
    expect(shown(pending)).toContain('touch PWNED');
    await decide(gateway, pending.id, 'reject');
    await call;
    expect(existsSync(join(gateway.workspace, 'PWNED'))).toBe(false);
  }, 60_000);

  it('held: a password in a URL, a bearer token and a credential-named argument without code stay masked on the card', async () => {
    const gateway = await gatewayWithShellServer();
    const mcp = opened.client((await connectClient(gateway.mcpUrl, 'attacker', undefined, gateway.auth)).client);
    const tools = (await mcp.listTools()).tools.map((entry) => entry.name);
    const shell = tools.find((name) => name.endsWith('shell')) as string;
    const deploy = tools.find((name) => name.endsWith('deploy')) as string;
    const url = mcp.callTool({ name: shell, arguments: { command: 'git ls-remote https://ci:hunter2secret@github.com/acme/site.git' } });
    const urlCard = await pendingApproval(gateway, shell);
    expect(shown(urlCard)).not.toContain('hunter2secret');
    expect(shown(urlCard)).toContain('https://[redacted]@github.com');
    await decide(gateway, urlCard.id, 'reject');
    await url;
    const key = mcp.callTool({ name: deploy, arguments: { api_key: 'k3y0123456789abcdef' } });
    const keyCard = await pendingApproval(gateway, deploy);
    expect(shown(keyCard)).not.toContain('k3y0123456789abcdef');
    await decide(gateway, keyCard.id, 'reject');
    await key;
  }, 60_000);
});
