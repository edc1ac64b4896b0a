import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Locator } from 'playwright-core';
import { useChromium } from '../../test/support/chromium.js';
import { clickWhenSettled } from '../../test/support/console-pointer.js';
import { diffForWrite } from '../cli/runtime/diff-for-write.js';
import { ConfigurationError, createConfirm, createPolicy, createToolRegistry, type ToolOutcome } from '../core/internal.js';
import { allowAll, runTests } from './__fixtures__/run-tests-tool.js';
import { WITHHELD_READ, showWithheldCard } from './__fixtures__/withheld-definitions.js';
import { builtinTools, createNodeHost } from '../node/index.js';
import { createFakeHost } from '../testing/index.js';
import { createApprovalQueue } from './approval-queue.js';
import { startConsole } from './create-console-server.js';

describe('console page in Chromium', () => {
  const browser = useChromium();
  beforeAll(() => {
    mkdirSync('test-results/console', { recursive: true });
  });

  /** A console over the `run_tests` tool, its approvals in a queue, and a page open on it. */
  async function openRunTestsConsole() {
    const registry = createToolRegistry({ tools: [runTests], host: createFakeHost(), policy: allowAll });
    const approvals = createApprovalQueue();
    const server = await startConsole({ registry, approvals });
    const page = await browser().newPage();
    await page.goto(server.url);
    return { registry, approvals, server, page };
  }

  it('shows a pending approval, approves it with a click, and lists the receipt', async () => {
    const { registry, approvals, server, page } = await openRunTestsConsole();
    try {
      await page.getByText('No calls yet').waitFor();
      // A hostile argument: markup must render as text, never as HTML.
      const pending = registry.dispatch(
        { callId: 'call-1', name: 'run_tests', arguments: { command: 'npm test <img src=x onerror=alert(1)>' } },
        { agent: 'coder', grantedTools: ['run_tests'], approval: { confirm: approvals.confirm } },
      );
      await page.getByRole('button', { name: /Approvals/ }).click();
      const card = page.locator('[data-approval]');
      await card.waitFor();
      // The argv reads back as it runs: the elements a shell would split or redirect are quoted.
      await expect.poll(() => card.locator('dd').first().textContent()).toBe("npm test '<img' src=x 'onerror=alert(1)>'");
      expect(await page.locator('img').count()).toBe(0);
      // And element by element, each in its own box.
      expect(await card.locator('ol.argv li').allTextContents()).toEqual(['npm', 'test', '<img', 'src=x', 'onerror=alert(1)>']);
      await page.screenshot({ path: 'test-results/console/1-pending-approval.png', fullPage: true });
      await card.getByRole('button', { name: 'Approve once' }).click();
      const outcome = await pending;
      expect(outcome.ok).toBe(true);
      await expect.poll(() => page.locator('[data-approval]').count()).toBe(0);
      await page.getByRole('button', { name: 'Live calls' }).click();
      await expect.poll(() => page.locator('[data-call="call-1"] .status').textContent()).toBe('ok');
      await page.screenshot({ path: 'test-results/console/2-live-call.png', fullPage: true });
      await page.getByRole('button', { name: 'Receipts' }).click();
      const row = page.locator('#receipts tr').first();
      await expect.poll(() => row.textContent()).toContain('run_tests');
      await row.click();
      await page.locator('#receipt-detail').waitFor();
      await expect.poll(() => page.locator('#receipt-detail').textContent()).toContain('approve via confirm:console');
      await page.screenshot({ path: 'test-results/console/3-receipt.png', fullPage: true });
    } finally {
      await page.close();
      await server.close();
    }
  });

  it('says on a card which client asked: its declared name written out, and only the start of its session id', async () => {
    const { registry, approvals, server, page } = await openRunTestsConsole();
    try {
      const session = { id: '0f3c2a9e-1b7d-4c55-9e0a-6d2f8b1c3e47', client: { name: 'client\u202Eevil', version: '1.0' } };
      const pending = registry.dispatch(
        { callId: 'call-session', name: 'run_tests', arguments: { command: 'npm test' } },
        { agent: 'coder', grantedTools: ['run_tests'], approval: { confirm: approvals.confirm, session } },
      );
      await page.getByRole('button', { name: /Approvals/ }).click();
      const card = page.locator('[data-approval]');
      await card.waitFor();
      expect(await card.locator('.session').textContent()).toBe('asked by client client\u27e8U+202E\u27e9evil 1.0 · session 0f3c2a9e · Approve for session covers this session only');
      expect(await page.content()).not.toContain('1b7d');
      await card.getByRole('button', { name: 'Reject' }).click();
      expect((await pending).ok).toBe(false);
    } finally {
      await page.close();
      await server.close();
    }
  });

  it('shows on each card everything the approval covers and why: the real path of a write, the MCP tool and arguments, method and URL, replaceAll, the rule', async () => {
    const workspace = mkdtempSync(join(tmpdir(), 'toolgate-cards-'));
    mkdirSync(join(workspace, 'src'));
    mkdirSync(join(workspace, '.git'));
    writeFileSync(join(workspace, '.git', 'config'), '[core]\n\tbare = false\n');
    writeFileSync(join(workspace, 'notes.md'), 'let a = 1;\n');
    const host = createNodeHost({ workspace, spillDir: join(workspace, '.spill'), sandbox: 'off' });
    const policy = createPolicy({
      rules: [{ rule: 'Bash(git push:*)', decision: 'ask', source: 'project' }],
      allowedDomains: ['api.github.com'],
      mcpServers: ['github'],
      allowedCommandGlobs: [['git', '*']],
    });
    const approvals = createApprovalQueue({ enrich: (request) => diffForWrite(host.fs, request) });
    const controller = createConfirm({ mode: 'ask', policy, prompt: (request, _context, signal) => approvals.confirm(request, signal) });
    const registry = createToolRegistry({ tools: builtinTools, host, policy });
    const server = await startConsole({ registry, approvals });
    const page = await browser().newPage();
    const anthropicKey = `sk-ant-api03-${'Zq8vT3xW9yB2nL5m'.repeat(2)}`;
    const githubToken = `ghp_${'a1B2c3D4e5'.repeat(4)}`;
    // Everything the browser receives: each response, and the event stream as a second client reads it.
    const received: Promise<string>[] = [];
    page.on('response', (response) => {
      if (!(response.headers()['content-type'] ?? '').startsWith('text/event-stream')) received.push(response.text().catch(() => ''));
    });
    const stream = await fetch(`http://127.0.0.1:${server.port}/api/events`, { headers: { 'x-toolgate-token': server.token } });
    const reader = (stream.body as ReadableStream<Uint8Array>).getReader();
    let frames = '';
    const reading = (async () => {
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) frames += new TextDecoder().decode(chunk.value);
    })().catch(() => undefined);
    const calls: Promise<ToolOutcome>[] = [];
    try {
      await page.goto(server.url);
      await page.getByRole('button', { name: /Approvals/ }).click();
      const context = { agent: 'coder', grantedTools: builtinTools.map((tool) => tool.name), approval: { confirm: controller.confirm } };
      const call = (callId: string, name: string, args: Record<string, unknown>): void => {
        calls.push(registry.dispatch({ callId, name, arguments: args }, context));
      };
      call('w', 'write_file', { path: 'src/api_key=0000/../../.git/config', content: '[core]\n\tbare = true\n' });
      call('m', 'mcp_call', { server: 'github', tool: 'delete_repo', arguments: { repo: 'me/prod', apiKey: anthropicKey } });
      call('h', 'http_request', { method: 'DELETE', url: `https://api.github.com/repos/me/prod?force=true&access_token=${githubToken}` });
      call('e', 'edit_file', { path: 'notes.md', oldText: 'let', newText: 'const', replaceAll: true });
      call('r', 'run_command', { command: ['git', 'push', 'origin', 'main'] });
      // A right-to-left override would show `docs/evilmd.png` for a file that ends in .md.
      call('b', 'write_file', { path: 'docs/evil\u202egnp.md', content: 'x' });
      const cardOf = (callId: string): Locator => page.locator('[data-approval]').filter({ has: page.locator('.meta', { hasText: ` · call ${callId} · ` }) });
      await expect.poll(() => page.locator('[data-approval]').count()).toBe(6);

      // The write: where it really lands, protected, how it was spelled, why it asks, what is masked, the diff against the real file.
      const write = cardOf('w');
      expect(await write.locator('.file code.path').textContent()).toBe('.git/config');
      expect(await write.locator('.flag-protected').textContent()).toBe('protected');
      expect(await write.locator('.requested').textContent()).toBe('requested as src/api_key=[redacted]/../../.git/config');
      expect(await write.locator('.why li').allTextContents()).toEqual(['Protected path — never approved automatically, never remembered', 'Mode: ask — every governed call asks']);
      expect(await write.locator('p.masked').textContent()).toBe('1 value masked (shown as [redacted]): approving this call is never remembered');
      const diff = (await write.locator('pre.diff').textContent()) ?? '';
      expect(diff).toContain('--- .git/config');
      expect(diff).toContain('-\tbare = false');
      expect(diff).toContain('+\tbare = true');
      await shoot(write, 'test-results/console/5-card-protected-write.png');

      const mcp = cardOf('m');
      expect(await rows(mcp)).toMatchObject({ server: 'github', tool: 'delete_repo' });
      const mcpArguments = (await mcp.locator('pre.mcp-arguments').textContent()) ?? '';
      expect(mcpArguments).toContain('"repo": "me/prod"');
      expect(mcpArguments).toContain('"apiKey": "[redacted]"');
      expect(await mcp.locator('p.masked').textContent()).toMatch(/^1 value masked/);

      const http = cardOf('h');
      expect(await http.locator('.request').textContent()).toBe('DELETE https://api.github.com/repos/me/prod?force=true&access_token=[redacted]');

      const edit = cardOf('e');
      expect(await edit.locator('.subtitle').textContent()).toBe('replaceAll: every occurrence');
      expect(await edit.locator('pre.diff').textContent()).toBe('- let\n+ const\n');
      expect(await edit.locator('p.masked').count()).toBe(0);

      const rule = cardOf('r');
      expect(await rule.locator('.why li').allTextContents()).toEqual(['Asked by rule Bash(git push:*) (project)', 'Mode: ask — every governed call asks']);
      expect(await rule.locator('.why code.rule').textContent()).toBe('Bash(git push:*)');
      expect(await rule.locator('ol.argv li').allTextContents()).toEqual(['git', 'push', 'origin', 'main']);
      expect(await rows(rule)).toMatchObject({ command: 'git push origin main', cwd: '.' });
      await shoot(rule, 'test-results/console/6-card-rule.png');
      expect(await cardOf('b').locator('.file code.path').textContent()).toBe('docs/evil⟨U+202E⟩gnp.md');
      await page.screenshot({ path: 'test-results/console/7-cards.png', fullPage: true });

      for (const pending of approvals.pending()) approvals.decide(pending.id, { outcome: 'reject', reason: 'test' });
      for (const outcome of await Promise.all(calls)) expect(outcome.ok).toBe(false);
      expect(readFileSync(join(workspace, '.git', 'config'), 'utf8')).toBe('[core]\n\tbare = false\n');
    } finally {
      await page.close();
      await reader.cancel().catch(() => undefined);
      await reading;
      await server.close();
    }
    // Nothing the browser was sent holds the unmasked resolved action or a secret.
    const everything = [...(await Promise.all(received)), frames].join('\n');
    expect(frames).toContain('"masked":1');
    expect(everything).not.toMatch(/"resolved"\s*:/);
    for (const leak of ['resolvedBy', 'linkTraversal', 'api_key=0000', anthropicKey, githubToken]) expect(everything).not.toContain(leak);
  });

  it('shows a withheld MCP definition whole, and approves only the digest that was shown', async () => {
    const registry = createToolRegistry({ tools: [], host: createFakeHost(), policy: allowAll });
    const offered = WITHHELD_READ;
    let current = offered.digest;
    const approved: string[] = [];
    const withheld = {
      list: () => Promise.resolve(approved.length === 0 ? [offered] : []),
      approve: (name: string, digest: string) => {
        if (digest !== current) return Promise.reject(new ConfigurationError('approvePin', `was given the digest of a definition "${name}" no longer offers: review what it offers now`));
        approved.push(`${name}@${digest}`);
        return Promise.resolve();
      },
    };
    const server = await startConsole({ registry, approvals: createApprovalQueue(), withheld });
    const page = await browser().newPage();
    try {
      const card = await showWithheldCard(page, server.url, 'mcp_files_read');
      // Upstream text is hostile: shown as text, never as markup.
      expect(await card.locator('pre.description').textContent()).toBe(offered.offered.description);
      expect(await page.locator('img').count()).toBe(0);
      expect(await card.textContent()).toContain(`offered sha256 ${offered.digest}`);
      expect(await card.textContent()).toContain('"path"');
      await page.screenshot({ path: 'test-results/console/4-withheld-definition.png', fullPage: true });
      // The upstream changed again after the page loaded: the approval of what was shown is refused, and says why.
      current = 'c'.repeat(64);
      // As a person clicks: once the card stands still where it was brought into view (the console ignores a click on a moving card).
      await clickWhenSettled(card.getByRole('button', { name: 'Approve this definition' }));
      await expect.poll(() => card.locator('p.error').textContent()).toContain('no longer offers');
      expect(approved).toEqual([]);
      current = offered.digest;
      await clickWhenSettled(card.getByRole('button', { name: 'Approve this definition' }));
      await expect.poll(() => approved).toEqual([`mcp_files_read@${offered.digest}`]);
      await expect.poll(() => page.locator('#withheld-empty').isVisible()).toBe(true);
    } finally {
      await page.close();
      await server.close();
    }
  });
});

/** A card's `dl.preview` rows as `{ dt: dd }`. */
async function rows(card: Locator): Promise<Record<string, string>> {
  const terms = await card.locator('dl.preview dt').allTextContents();
  const values = await card.locator('dl.preview dd').allTextContents();
  return Object.fromEntries(terms.map((term, index) => [term, values[index] ?? '']));
}

/** One card's screenshot, scrolled to the middle of the view: at the top, the sticky header would cover it. */
async function shoot(card: Locator, path: string): Promise<void> {
  await card.evaluate((node) => node.scrollIntoView({ block: 'center' }));
  await card.screenshot({ path });
}
