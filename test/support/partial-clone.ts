import { execFileSync } from 'node:child_process';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';

const identity = { GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.test', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.test' };

/** Plain git, outside any host. */
export function plainGit(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'protocol.file.allow=always', ...args], { cwd, env: { ...process.env, ...identity }, encoding: 'utf8', stdio: ['pipe', 'pipe', 'pipe'] });
}

/**
 * A sparse partial clone at `clone` (folders `d` and `e`, only `e` checked
 * out, a sparse index) of a repository made in `scratch`, which it fetches
 * from by path: git fetches what it misses from there, on demand.
 */
export async function sparsePartialClone(scratch: string, clone: string): Promise<void> {
  const source = path.join(scratch, 'source');
  await mkdir(path.join(source, 'd'), { recursive: true });
  await mkdir(path.join(source, 'e'));
  plainGit(scratch, 'init', '-q', source);
  await writeFile(path.join(source, 'd', 'f'), 'a\n');
  await writeFile(path.join(source, 'e', 'g'), 'b\n');
  plainGit(source, 'add', '.');
  plainGit(source, 'commit', '-qm', 'one');
  plainGit(source, 'config', 'uploadpack.allowFilter', 'true');
  plainGit(source, 'config', 'uploadpack.allowAnySHA1InWant', 'true');
  plainGit(scratch, 'clone', '-q', '--no-local', '--filter=tree:0', '--no-checkout', `file://${source}`, clone);
  plainGit(clone, 'sparse-checkout', 'init', '--cone', '--sparse-index');
  plainGit(clone, 'sparse-checkout', 'set', 'e');
  plainGit(clone, 'checkout', '-q');
}

/** Make the clone lose the tree of folder `d`: every other object, repacked into one promisor pack in `scratch` and back. */
export async function dropTreeOfD(scratch: string, clone: string): Promise<void> {
  const tree = plainGit(clone, 'rev-parse', 'HEAD:d').trim();
  const pack = path.join(clone, '.git', 'objects', 'pack');
  const kept = plainGit(clone, 'cat-file', '--batch-all-objects', '--batch-check=%(objectname)').split('\n').filter((id) => id !== '' && id !== tree);
  const name = execFileSync('git', ['pack-objects', path.join(scratch, 'pack')], { cwd: clone, input: `${kept.join('\n')}\n`, encoding: 'utf8' }).trim();
  for (const file of await readdir(pack)) await rm(path.join(pack, file));
  for (const suffix of ['pack', 'idx']) await writeFile(path.join(pack, `pack-${name}.${suffix}`), await readFile(path.join(scratch, `pack-${name}.${suffix}`)));
  await writeFile(path.join(pack, `pack-${name}.promisor`), '');
}
