import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..');
const readme = readFileSync(join(root, 'README.md'), 'utf8');

/** The first ```ts block after a heading. */
function exampleAfter(heading: string): string {
  const section = readme.slice(readme.indexOf(heading));
  const match = /```ts\n([\s\S]*?)```/.exec(section);
  if (match?.[1] === undefined) throw new Error(`no example after ${heading}`);
  return match[1];
}

describe('README', () => {
  it('the library example runs as written against the built package', () => {
    // The example is plain JavaScript as well as TypeScript: run it as a module inside the package, so `toolgate` resolves to dist.
    const file = join(root, 'readme-example.test-run.mjs');
    writeFileSync(file, exampleAfter('## The library in one example'));
    try {
      const output = execFileSync(process.execPath, [file], { cwd: root, encoding: 'utf8' });
      expect(output.trim()).toBe('5 5');
    } finally {
      rmSync(file, { force: true });
    }
  });

  it('names the two commands of the quick start', () => {
    expect(readme).toContain('npm install && npm start');
    expect(readme).toContain('npm test');
    const scripts = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
    expect(scripts.start).toContain('serve');
    expect(scripts.test).toContain('vitest run');
  });
});
