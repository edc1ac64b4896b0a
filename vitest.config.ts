import { defineConfig } from 'vitest/config';
import { configValidatorPlugin } from './config-validator.build.mjs';
import { consoleScriptPlugin } from './vite.console.config.js';

export default defineConfig({
  plugins: [consoleScriptPlugin(), configValidatorPlugin()],
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts', 'examples/**/*.test.ts'],
    typecheck: { enabled: true, include: ['src/**/*.test-d.ts'], tsconfig: './tsconfig.typetest.json' },
    // Most files spawn the built CLI, gateways and upstream servers and wait on them: two workers keep both cores busy.
    maxWorkers: 2,
    // A test that drives several CLI processes end to end takes tens of seconds on a loaded 2-core machine; a hang still fails.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // A worker runs file after file in one module graph: a fresh process and module load for each of 400 files cost
    // more than half the run. So a test file restores what it changes (environment, timers, working folder), and a
    // shared fixture registers its hooks when a file calls it, not when it is first imported.
    isolate: false,
    globalSetup: ['test/support/run-temp-folder.ts'],
    reporters: ['default'],
  },
});
