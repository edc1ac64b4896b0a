import { chmod, link, mkdir, readFile, rename, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { lexicalPath } from '../../core/action/resolve-action-lexically.js';
import type { ResolvedCommand } from '../../core/internal.js';
import { resolvableArguments } from '../../core/policy/argument-paths.js';
import type { NodeHost } from '../node-host-types.js';
import { exists, useProcessWorkspace } from './__fixtures__/process-workspace.js';
import { refusalReason } from '../__fixtures__/refusal-reason.js';

const setup = useProcessWorkspace();

/** The command as the engine hands it on after resolution: argv, the host's executable, the working directory, the argument paths. */
function resolvedCommand(host: NodeHost, argv: readonly string[], cwd?: string): ResolvedCommand {
  const answer = host.resolve({ tool: 'run_command', access: 'read', paths: cwd === undefined ? [] : [cwd], program: argv[0] ?? '', arguments: resolvableArguments(argv, cwd ?? '.') ?? [] });
  return { argv, executable: answer.executable, cwd: answer.files[0] ?? lexicalPath('.'), ...(answer.arguments === undefined ? {} : { arguments: answer.arguments }) };
}

async function program(directory: string, marker: string): Promise<void> {
  await mkdir(directory, { recursive: true });
  await writeFile(path.join(directory, 'tool'), `#!/bin/sh\ntouch ${marker}\n`);
  await chmod(path.join(directory, 'tool'), 0o755);
}

describe('spawn re-checks the command it was approved for', () => {
  it('refuses when another executable would run now (one planted earlier on the PATH), and runs neither', async () => {
    const first = path.join(setup.base, 'bin-first');
    const second = path.join(setup.base, 'bin-second');
    await mkdir(first);
    await program(second, path.join(setup.base, 'second-ran'));
    const host = setup.makeHost({ executablePath: [first, second, '/usr/bin', '/bin'] });
    const expected = resolvedCommand(host, ['tool']);
    expect(expected.executable).toBe(path.join(second, 'tool'));
    await program(first, path.join(setup.base, 'first-ran'));
    expect(await refusalReason(host.process.spawn('tool', [], {}, { expected }))).toBe('target_changed');
    expect(await exists(path.join(setup.base, 'first-ran'))).toBe(false);
    expect(await exists(path.join(setup.base, 'second-ran'))).toBe(false);
    // Resolved again, it runs: the one now first on the PATH.
    await host.process.spawn('tool', [], {}, { expected: resolvedCommand(host, ['tool']) });
    expect(await exists(path.join(setup.base, 'first-ran'))).toBe(true);
  });

  it('refuses when the working directory was replaced or swapped for a link, and creates nothing there', async () => {
    const host = setup.makeHost();
    await mkdir(path.join(setup.workspace, 'job'));
    await mkdir(path.join(setup.workspace, 'elsewhere'));
    const replaced = resolvedCommand(host, ['touch', 'made-here'], 'job');
    await rename(path.join(setup.workspace, 'job'), path.join(setup.workspace, 'job-old'));
    await mkdir(path.join(setup.workspace, 'job'));
    expect(await refusalReason(host.process.spawn('touch', ['made-here'], {}, { cwd: 'job', expected: replaced }))).toBe('target_changed');

    const linked = resolvedCommand(host, ['touch', 'made-here'], 'job');
    await rename(path.join(setup.workspace, 'job'), path.join(setup.workspace, 'job-2'));
    await symlink('elsewhere', path.join(setup.workspace, 'job'));
    expect(await refusalReason(host.process.spawn('touch', ['made-here'], {}, { cwd: 'job', expected: linked }))).toBe('target_changed');
    for (const folder of ['job-old', 'job-2', 'elsewhere']) expect(await exists(path.join(setup.workspace, folder, 'made-here')), folder).toBe(false);
  });

  it('refuses an argv other than the one judged, and runs exactly the judged one', async () => {
    const host = setup.makeHost();
    const expected = resolvedCommand(host, ['touch', 'judged']);
    expect(await refusalReason(host.process.spawn('touch', ['other'], {}, { expected }))).toBe('target_changed');
    expect(await refusalReason(host.process.spawn('touch', ['judged', 'extra'], {}, { expected }))).toBe('target_changed');
    expect(await exists(path.join(setup.workspace, 'other'))).toBe(false);
    await host.process.spawn('touch', ['judged'], {}, { expected });
    expect(await exists(path.join(setup.workspace, 'judged'))).toBe(true);
  });

  it('refuses when a path its arguments name leads elsewhere now: a link, a replaced file, a hard link swapped in after approval', async () => {
    const host = setup.makeHost();
    await writeFile(path.join(setup.workspace, '.env'), 'ARGUMENT-SECRET\n');
    for (const [name, swap] of [
      ['linked.txt', async (file: string) => {
        await rm(file);
        await symlink('.env', file);
      }],
      // Written beside it first, so the new file cannot reuse the old one's inode.
      ['replaced.txt', async (file: string) => {
        await writeFile(`${file}.new`, 'other\n');
        await rename(`${file}.new`, file);
      }],
      ['hardlinked.txt', async (file: string) => {
        await rm(file);
        await link(path.join(setup.workspace, '.env'), file);
      }],
    ] as const) {
      const file = path.join(setup.workspace, name);
      await writeFile(file, 'plain\n');
      const approved = resolvedCommand(host, ['cat', name]);
      expect(approved.arguments?.[0]).toMatchObject({ real: name, protected: false });
      await swap(file);
      const attempt = host.process.spawn('cat', [name], {}, { expected: approved });
      expect(await refusalReason(attempt), name).toBe('target_changed');
    }
    // Unchanged, it runs.
    await writeFile(path.join(setup.workspace, 'still.txt'), 'plain\n');
    expect((await host.process.spawn('cat', ['still.txt'], {}, { expected: resolvedCommand(host, ['cat', 'still.txt']) })).stdout).toBe('plain\n');
  });

  it('refuses a script its arguments name that was rewritten in place after approval, to the same length and inode, and runs none of it', async () => {
    const host = setup.makeHost();
    const script = path.join(setup.workspace, 'run.sh');
    await writeFile(script, 'echo tests passed\n');
    const approved = resolvedCommand(host, ['sh', 'run.sh']);
    expect(approved.arguments?.[0]?.contentStamp).toBeDefined();
    await writeFile(script, 'touch pwned.txt #\n');
    const attempt = host.process.spawn('sh', ['run.sh'], {}, { expected: approved });
    expect(await refusalReason(attempt)).toBe('target_changed');
    expect(await exists(path.join(setup.workspace, 'pwned.txt'))).toBe(false);
    // Read, not written, it runs as judged.
    const judged = resolvedCommand(host, ['sh', 'run.sh']);
    await host.process.spawn('cat', ['run.sh'], {}, { expected: resolvedCommand(host, ['cat', 'run.sh']) });
    expect((await host.process.spawn('sh', ['run.sh'], {}, { expected: judged })).exitCode).toBe(0);
    expect(await exists(path.join(setup.workspace, 'pwned.txt'))).toBe(true);
  });

  it('holds a script its arguments name while the program starts: a write sent beside the spawn lands after it, and the program runs what was judged', async () => {
    const host = setup.makeHost();
    const script = path.join(setup.workspace, 'run.sh');
    await writeFile(script, 'echo judged\n');
    // A program that reads the script it names a moment after it starts, as an interpreter slow to start does.
    await writeFile(path.join(setup.workspace, 'later.sh'), 'sleep 1\n. "./$1"\n');
    const approved = resolvedCommand(host, ['sh', 'later.sh', 'run.sh']);
    const spawned = host.process.spawn('sh', ['later.sh', 'run.sh'], {}, { expected: approved });
    // Sent as the spawn begins, as a model's parallel edit arrives: before the program has read the file.
    const written = host.fs.writeFile('run.sh', 'touch pwned-beside.txt\necho swapped\n');
    const [result] = await Promise.all([spawned, written]);
    expect(result.stdout).toBe('judged\n');
    expect(await exists(path.join(setup.workspace, 'pwned-beside.txt'))).toBe(false);
    expect(await readFile(script, 'utf8')).toBe('touch pwned-beside.txt\necho swapped\n');
  });

  it('waits for a write of a script its arguments name that began first, then finds the script changed and runs nothing', async () => {
    const host = setup.makeHost();
    await writeFile(path.join(setup.workspace, 'run.sh'), 'echo judged\n');
    const approved = resolvedCommand(host, ['sh', 'run.sh']);
    const written = host.fs.writeFile('run.sh', 'touch pwned-first.txt\necho swapped\n');
    const attempt = host.process.spawn('sh', ['run.sh'], {}, { expected: approved });
    await written;
    expect(await refusalReason(attempt)).toBe('target_changed');
    expect(await exists(path.join(setup.workspace, 'pwned-first.txt'))).toBe(false);
  });

  it('runs in a protected working directory only when the approved command named it', async () => {
    const host = setup.makeHost();
    await mkdir(path.join(setup.workspace, '.git'), { recursive: true });
    expect(await refusalReason(host.process.spawn('pwd', [], {}, { cwd: '.git' }))).toBe('protected_path');
    const approved = resolvedCommand(host, ['pwd'], '.git');
    expect(approved.cwd).toMatchObject({ real: '.git', protected: true });
    expect((await host.process.spawn('pwd', [], {}, { cwd: '.git', expected: approved })).stdout.trim()).toBe(path.join(host.workspace, '.git'));
  });
});
