import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, run, startUrlScript } from './fixtures/mcp/helpers.js';

const CONFORMANCE = join(ROOT, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');
const GATEWAY = join(ROOT, 'test/fixtures/mcp/gateway-http.mjs');
const BASELINE = join(ROOT, 'test/fixtures/mcp/conformance-baseline.yml');

describe('@modelcontextprotocol/conformance 0.1.13, server mode, against the HTTP gateway', () => {
  it('passes every scenario outside the checked-in baseline', async () => {
    expect(existsSync(join(ROOT, 'dist/mcp/index.js')), 'build first: npx tsc -p tsconfig.build.json').toBe(true);
    const gateway = await startUrlScript(GATEWAY);
    const output = await mkdtemp(join(tmpdir(), 'toolgate-conformance-'));
    try {
      const result = await run(process.execPath, [CONFORMANCE, 'server', '--url', gateway.url, '--expected-failures', BASELINE, '-o', output], { timeoutMs: 120_000 });
      expect(result.stdout).toContain('Baseline check passed');
      expect(result.code).toBe(0);
      // Two scenarios pass even for a missing tool: check they reached the real tools.
      const simple = await checks(output, 'tools-call-simple-text');
      expect(simple[0]?.details?.result).toEqual({ content: [{ type: 'text', text: 'This is a simple text response for testing.' }] });
      const failed = await checks(output, 'tools-call-error');
      expect(JSON.stringify(failed[0]?.details?.result)).toContain('Tool \\"test_error_handling\\" failed');
      // Media reach the client as image and audio blocks, read back from the gateway host's media store.
      const image = await checks(output, 'tools-call-image');
      expect(image[0]).toMatchObject({ status: 'SUCCESS', details: { mimeType: 'image/png', hasData: true } });
      const mixed = await checks(output, 'tools-call-mixed-content');
      expect(mixed[0]).toMatchObject({ status: 'SUCCESS', details: { contentTypes: ['text', 'image', 'resource'] } });
      const dns = await checks(output, 'dns-rebinding-protection');
      expect(dns.map((check) => check.status)).toEqual(['SUCCESS', 'SUCCESS']);
    } finally {
      gateway.stop();
    }
  }, 150_000);
});

interface Check {
  readonly status: string;
  readonly details?: { readonly result?: unknown; readonly [detail: string]: unknown };
}

async function checks(output: string, scenario: string): Promise<Check[]> {
  const folder = (await readdir(output)).find((name) => name.startsWith(`server-${scenario}-`));
  if (folder === undefined) throw new Error(`no results for ${scenario}`);
  return JSON.parse(await readFile(join(output, folder, 'checks.json'), 'utf8')) as Check[];
}
