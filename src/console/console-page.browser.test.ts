import { mkdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { z } from 'zod';
import { launchChromium } from '../../test/support/chromium.js';
import { createToolRegistry, defineTool, type ToolPolicy } from '../core/index.js';
import { createFakeHost } from '../testing/index.js';
import { createApprovalQueue } from './approval-queue.js';
import { startConsole } from './create-console-server.js';

const allowAll: ToolPolicy = { version: 3, decideIdentity: () => ({ kind: 'allow', matched: [] }), decideArguments: () => ({ kind: 'allow', matched: [] }) };

const runTests = defineTool({
  name: 'run_tests',
  description: 'Run the test suite',
  input: z.object({ command: z.string() }),
  policy: { spawnsProcess: true },
  policyTarget: (args) => ({ command: args.command }),
  dispatch: () => ({ exitCode: 0, stdout: 'all green' }),
});

describe('console page in Chromium', () => {
  let browser: Browser | undefined;
  beforeAll(async () => {
    mkdirSync('test-results/console', { recursive: true });
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('shows a pending approval, approves it with a click, and lists the receipt', async () => {
    const registry = createToolRegistry({ tools: [runTests], host: createFakeHost(), policy: allowAll });
    const approvals = createApprovalQueue();
    const server = await startConsole({ registry, approvals });
    const page = await (browser as Browser).newPage();
    try {
      await page.goto(server.url);
      await page.getByText('No calls yet').waitFor();
      // A hostile argument: markup must render as text, never as HTML.
      const pending = registry.dispatch(
        { callId: 'call-1', name: 'run_tests', arguments: { command: 'npm test <img src=x onerror=alert(1)>' } },
        { agent: 'coder', grantedTools: ['run_tests'], approval: { confirm: approvals.confirm } },
      );
      await page.getByRole('button', { name: /Approvals/ }).click();
      const card = page.locator('[data-approval]');
      await card.waitFor();
      await expect.poll(() => card.locator('dd').first().textContent()).toBe('npm test <img src=x onerror=alert(1)>');
      expect(await page.locator('img').count()).toBe(0);
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
});
