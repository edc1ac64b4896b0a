import { defineConfig } from 'vitest/config';
import { consoleScriptPlugin } from './vite.console.config.js';

export default defineConfig({
  plugins: [consoleScriptPlugin()],
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts', 'examples/**/*.test.ts'],
    typecheck: { enabled: true, include: ['src/**/*.test-d.ts'], tsconfig: './tsconfig.json' },
    testTimeout: 20_000,
    hookTimeout: 30_000,
    pool: 'forks',
    reporters: ['default'],
  },
});
