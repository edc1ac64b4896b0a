import { describe, expect, it } from 'vitest';
import { createToolRegistry } from '../registry/create-tool-registry.js';
import type { ProviderName } from './projection-types.js';
import { sampleTools } from './__fixtures__/sample-tools.js';

const registry = createToolRegistry({ tools: sampleTools });
const providers: readonly ProviderName[] = ['openai-chat', 'openai-responses', 'anthropic', 'gemini', 'mcp'];

describe('provider projection golden files', () => {
  for (const provider of providers) {
    it(`matches __fixtures__/${provider}.json`, async () => {
      const projected = registry.project(provider);
      await expect(`${JSON.stringify(projected, null, 2)}\n`).toMatchFileSnapshot(`./__fixtures__/${provider}.json`);
    });
  }
});
