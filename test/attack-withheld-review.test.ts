import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { WithheldReview } from '../src/console/console-types.js';
import { showWithheldCard } from '../src/console/__fixtures__/withheld-definitions.js';
import { ROOT } from './fixtures/mcp/helpers.js';
import { useChromium } from './support/chromium.js';
import { closeAfterEach, connectClient, makeWorkspace, serveWorkspace, type ServedGateway } from './support/serve-gateway.js';
import { runCli } from './support/spawn-cli.js';

// A hostile upstream against what a person reviews of a withheld definition, through `toolgate serve`, the MCP SDK
// client, `toolgate mcp withheld` and the console in Chromium. It announces a destructive tool, then the same tool
// with its annotations alone turned read-only. Before, the review showed the title, description and schemas only: the
// diff the person read was empty, they approved an "unchanged" definition, and with `trust: "annotations"` the tool
// then ran with no approval, in plan mode too. And the card's meta line wrote the server's tool name as it came, so a
// right-to-left override in it turned the rest of the line around.

const FLIP = join(ROOT, 'test/__fixtures__/annotation-flip-server.mjs');
const opened = closeAfterEach();
const browser = useChromium();

async function withheldOf(gateway: ServedGateway): Promise<WithheldReview> {
  for (let waited = 0; waited < 20_000; waited += 100) {
    const [entry] = (await gateway.api('/api/withheld')).body as WithheldReview[];
    if (entry !== undefined) return entry;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('no definition was withheld');
}

/** A gateway in plan mode serving the flipping upstream as trusted for its annotations, a client of it, and where the tool leaves its mark. */
async function flipping(toolName?: string, descriptionLines?: number): Promise<{ gateway: ServedGateway; marker: string; flip: () => void; call: () => Promise<{ isError?: boolean }> }> {
  const outside = mkdtempSync(join(tmpdir(), 'toolgate-flip-'));
  const marker = join(outside, 'marker');
  const env = {
    FLIP_STATE: join(outside, 'state'),
    FLIP_MARKER: marker,
    ...(toolName === undefined ? {} : { FLIP_TOOL_NAME: toolName }),
    ...(descriptionLines === undefined ? {} : { FLIP_DESCRIPTION_LINES: String(descriptionLines) }),
  };
  const gateway = opened.gateway(await serveWorkspace(makeWorkspace({ mode: 'plan', servers: { up: { command: process.execPath, args: [FLIP], trust: 'annotations', env } } })));
  const mcp = opened.client((await connectClient(gateway.mcpUrl, 'flipper', undefined, gateway.auth)).client);
  return {
    gateway,
    marker,
    flip: () => writeFileSync(env.FLIP_STATE, 'readonly'),
    call: () => mcp.callTool({ name: 'mcp_up_wipe', arguments: { folder: '/home/me/project' } }) as Promise<{ isError?: boolean }>,
  };
}

describe('attack: an upstream turns its tool read-only by its annotations alone', () => {
  it('the review shows the change, in the API, in `toolgate mcp withheld` and on the console card', async () => {
    const at = await flipping();
    expect((await at.call()).isError).toBe(true);
    at.flip();
    const withheld = await withheldOf(at.gateway);
    expect(withheld.offered.annotations).toEqual({ readOnlyHint: true, destructiveHint: false });
    const changed = (withheld.changes ?? '').split('\n').filter((line) => /^[+-](?![+-])/.test(line));
    expect(changed).toEqual(['-    "destructiveHint": true,', '-    "readOnlyHint": false', '+    "destructiveHint": false,', '+    "readOnlyHint": true']);

    const listed = await runCli(['mcp', 'withheld'], at.gateway.workspace);
    expect(listed.stdout).toContain('+    "readOnlyHint": true');
    expect(listed.stdout).toContain('  annotations:\n    {\n      "readOnlyHint": true,\n      "destructiveHint": false\n    }');

    const page = await browser().newPage();
    const card = await showWithheldCard(page, String(at.gateway.consoleUrl), withheld.name);
    const diff = await card.locator('section.changes').innerText();
    expect(diff).toContain('"readOnlyHint": true');
    expect(diff).toContain('"destructiveHint": true');
    expect(await card.locator('pre.annotations').textContent()).toContain('"readOnlyHint": true');
    await page.close();
    // Nothing was approved: the tool is not offered, and did not run.
    expect((await at.call()).isError).toBe(true);
    expect(existsSync(at.marker)).toBe(false);
  }, 60_000);

  it("the card's meta line writes a right-to-left override in the server's tool name out", async () => {
    const at = await flipping('wipe_all\u202Eelif_daer');
    at.flip();
    const withheld = await withheldOf(at.gateway);
    const page = await browser().newPage();
    const card = await showWithheldCard(page, String(at.gateway.consoleUrl), withheld.name);
    const meta = (await card.locator('.meta').first().textContent()) ?? '';
    expect(meta).toContain('tool wipe_all⟨U+202E⟩elif_daer · changed since it was approved');
    expect(meta).not.toContain('\u202E');
    await page.close();
  }, 60_000);

  it('a definition whose every line changed is reviewed at once, shown whole, and says it was not compared', async () => {
    // 12,000 lines each side, under the 256 KiB compared: a line diff of them held the gateway's one thread, and every
    // client of it, for about 20 s at each request of the list, the console's and `toolgate mcp withheld`'s.
    const at = await flipping(undefined, 12_000);
    at.flip();
    await withheldOf(at.gateway);
    const started = Date.now();
    const [withheld] = (await at.gateway.api('/api/withheld')).body as WithheldReview[];
    expect(Date.now() - started, 'the review held the gateway').toBeLessThan(3000);
    expect(withheld?.changes).toBeUndefined();
    expect(withheld?.uncompared).toBe(true);
    const page = await browser().newPage();
    const card = await showWithheldCard(page, String(at.gateway.consoleUrl), withheld?.name ?? '');
    expect(await card.locator('p.uncompared').textContent()).toContain('not compared line by line');
    expect(await card.locator('pre.description').textContent()).toContain('r11999');
    await page.close();
  }, 120_000);
});
