import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { builtinTools } from '../tools/builtin-tools.js';
import { renderToolCatalog } from './render-tool-catalog.js';

const catalogPath = fileURLToPath(new URL('../../../docs/tool-catalog.md', import.meta.url));

describe('renderToolCatalog', () => {
  it('matches the checked-in docs/tool-catalog.md (UPDATE_CATALOG=1 rewrites it)', async () => {
    const rendered = renderToolCatalog(builtinTools);
    if (process.env.UPDATE_CATALOG === '1') await writeFile(catalogPath, rendered);
    const checkedIn = await readFile(catalogPath, 'utf8').catch(() => '');
    expect(checkedIn, 'docs/tool-catalog.md is stale: run UPDATE_CATALOG=1 npx vitest run src/node/catalog').toBe(rendered);
  });

  it('documents every built-in with its arguments and return shape, never a configOnly parameter as an argument', () => {
    const rendered = renderToolCatalog(builtinTools);
    for (const tool of builtinTools) {
      expect(rendered).toContain(`## ${tool.name}`);
      expect(tool.output, `${tool.name} documents its return shape`).toBeDefined();
    }
    expect(rendered).not.toMatch(/\| `credentialRef` \|/);
    expect(rendered).toContain('**Configuration only** (never shown to a model): `credentialRef`');
  });
});
