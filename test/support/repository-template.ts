import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';

/**
 * A repository the tests of a file each start from, built by `build` (given a folder `git init` made) on first use
 * and copied into each workspace after: shaping one takes a dozen git commands, and every test of a file wants the
 * same. The copy replaces the workspace's own `.git`, and is a repository of its own, as a fresh build would be; what
 * `build` makes outside the folder (a submodule's upstream) is shared by the copies, and must hold no absolute path
 * of the folder (git writes a submodule's paths relative). The template is removed after the file's tests.
 */
export function useRepositoryTemplate(prefix: string, build: (repository: string) => void): (workspace: string) => void {
  let template: string | undefined;
  afterAll(() => {
    if (template !== undefined) rmSync(template, { recursive: true, force: true });
  });
  return (workspace) => {
    if (template === undefined) {
      const folder = mkdtempSync(join(tmpdir(), `${prefix}-`));
      execFileSync('git', ['init', '-q'], { cwd: folder });
      build(folder);
      template = folder;
    }
    rmSync(join(workspace, '.git'), { recursive: true, force: true });
    cpSync(template, workspace, { recursive: true, verbatimSymlinks: true, preserveTimestamps: true });
  };
}
