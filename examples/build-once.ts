import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The repository root. */
export const root = fileURLToPath(new URL('..', import.meta.url));

/** The examples import the built package (`toolgate/...`); build it when a fresh checkout has no `dist/`. */
export function ensureBuilt(): void {
  if (existsSync(`${root}dist/adapters/langchain/index.js`)) return;
  execFileSync(process.execPath, [`${root}node_modules/typescript/bin/tsc`, '-p', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' });
}
