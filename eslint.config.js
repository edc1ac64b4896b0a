import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', '.bench-out/', 'node_modules/', 'coverage/', 'test-results/', '**/*.d.ts', '**/__fixtures__/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        // The scripts outside every tsconfig: the config, the bench's relays and the test fixtures' servers.
        projectService: { allowDefaultProject: ['*.js', '*.mjs', 'bench/*.mjs', 'test/fixtures/mcp/*.mjs'], maximumDefaultProjectFileMatchCount_THIS_WILL_SLOW_DOWN_LINTING: 16 },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' }],
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true, allowBoolean: true }],
      '@typescript-eslint/restrict-plus-operands': 'error',
      '@typescript-eslint/only-throw-error': 'error',
      'no-restricted-imports': 'off',
    },
  },
  {
    files: ['src/core/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['node:*', 'fs', 'path', 'os', 'child_process', 'net', 'http', 'https', 'crypto', 'stream', 'worker_threads', 'url'], message: 'src/core is engine-pure: no platform imports.' }] }],
      'no-restricted-globals': ['error', { name: 'process', message: 'src/core is engine-pure.' }, { name: 'Buffer', message: 'src/core is engine-pure.' }],
    },
  },
  {
    // Runnable examples are plain ESM run by Node as-is; their behaviour is checked by examples/*.test.ts.
    files: ['examples/**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
  },
  { files: ['examples/**/*.mjs'], languageOptions: { globals: { console: 'readonly' } } },
  {
    // A build step Node runs as it is (npm run build); vitest.config.ts type-checks its use through its declaration.
    files: ['*.build.mjs'],
    ...tseslint.configs.disableTypeChecked,
  },
  { files: ['*.build.mjs'], languageOptions: { globals: { URL: 'readonly', process: 'readonly' } } },
  {
    files: ['**/*.test.ts', '**/*.test-d.ts', 'bench/**', 'test/**'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
);
