import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI } from './support/spawn-cli.js';

const DOWN = '\u001b[B';

/**
 * Run `toolgate call` on a real pseudo-terminal (util-linux `script`), wait
 * for the approval prompt, then type the given keys, as a person would.
 */
function callOnTerminal(cwd: string, args: string, answers: readonly { after: string; keys: string }[]): Promise<{ code: number | null; screen: string }> {
  return new Promise((resolve, reject) => {
    // A pseudo-terminal starts with no size; give it one, as a real terminal has.
    const command = `stty cols 120 rows 40; ${process.execPath} ${CLI} call ${args}`;
    const child = spawn('script', ['-qfec', command, '/dev/null'], { cwd, env: { ...process.env, TERM: 'xterm', NO_COLOR: '1' } });
    let screen = '';
    let next = 0;
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      screen += chunk;
      const answer = answers[next];
      if (answer !== undefined && screen.includes(answer.after)) {
        next += 1;
        setTimeout(() => child.stdin.write(answer.keys), 100);
      }
    });
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code, screen }));
  });
}

describe('toolgate call on a terminal', () => {
  const workspace = (): string => {
    const dir = mkdtempSync(join(tmpdir(), 'toolgate-tty-'));
    writeFileSync(join(dir, 'toolgate.config.json'), JSON.stringify({ scope: 'workspace-write', mode: 'ask' }));
    writeFileSync(join(dir, 'notes.md'), 'before\n');
    return dir;
  };

  it('asks at the prompt with the secret-free preview; approving once performs the write', async () => {
    const dir = workspace();
    const { code, screen } = await callOnTerminal(dir, `write_file '{"path":"notes.md","content":"after"}'`, [{ after: 'Allow write_file?', keys: '\r' }]);
    expect(screen).toContain('Writes: notes.md');
    expect(screen).toContain('Why: Mode: ask — every governed call asks');
    expect(screen).toContain('Approve once');
    expect(screen).toContain('Always allow');
    expect(code).toBe(0);
    expect(readFileSync(join(dir, 'notes.md'), 'utf8')).toBe('after');
  });

  it('shows a write where it really lands: .git/config, protected, the spelling beneath, the masked value', async () => {
    const dir = workspace();
    // A repository, so the target exists: a missing one is flagged as a new file too.
    execFileSync('git', ['init', '-q'], { cwd: dir });
    const { code, screen } = await callOnTerminal(dir, `write_file '{"path":"src/api_key=0000/../../.git/config","content":"x"}'`, [
      { after: 'Allow write_file?', keys: `${DOWN}${DOWN}${DOWN}\r` },
      { after: 'Reason', keys: '\r' },
    ]);
    expect(code).toBe(3);
    expect(screen).toContain('Writes: .git/config  [protected]');
    expect(screen).toContain('requested as: src/api_key=[redacted]/../../.git/config');
    expect(screen).toContain('Why: Protected path — never approved automatically, never remembered');
    expect(screen).toContain('1 value masked (shown as [redacted]): approving this call is never remembered');
    expect(screen).not.toContain('api_key=0000');
  });

  it('rejecting with a reason denies the call (exit 3) and leaves the file alone', async () => {
    const dir = workspace();
    const { code, screen } = await callOnTerminal(dir, `write_file '{"path":"notes.md","content":"after"}'`, [
      { after: 'Allow write_file?', keys: `${DOWN}${DOWN}${DOWN}\r` },
      { after: 'Reason', keys: 'not today\r' },
    ]);
    expect(code).toBe(3);
    expect(screen).toContain('DENIED_BY_USER');
    expect(screen).toContain('not today');
    expect(readFileSync(join(dir, 'notes.md'), 'utf8')).toBe('before\n');
  });
});
