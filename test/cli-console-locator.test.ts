import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI, runCli } from './support/spawn-cli.js';

/** `toolgate console` finds the console of a gateway an MCP client started over stdio, whose stderr nobody reads. */
describe('toolgate console', () => {
  it('prints the running console URL, from a file only the user can read, and nothing once the gateway stops', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolgate-console-'));
    writeFileSync(join(dir, 'toolgate.config.json'), JSON.stringify({ console: { enabled: true } }));
    expect(await runCli(['console'], dir)).toMatchObject({ code: 1, stderr: expect.stringContaining('No console is running') });

    const gateway = spawn(process.execPath, [CLI, 'serve', '--stdio'], { cwd: dir, env: { ...process.env, NO_COLOR: '1' } });
    try {
      let stderr = '';
      gateway.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
      await expect.poll(() => stderr, { timeout: 15_000 }).toMatch(/console: http:\/\/127\.0\.0\.1:\d+\/\?token=\S+/);
      const announced = /console: (\S+)/.exec(stderr)?.[1];

      const found = await runCli(['--json', 'console'], dir);
      expect(found.code).toBe(0);
      expect(JSON.parse(found.stdout)).toMatchObject({ url: announced, pid: gateway.pid });
      expect((await runCli(['console'], dir)).stdout.trim()).toBe(announced);
      // The URL it prints opens the console, which moves the token into its cookie.
      const opened = await fetch(announced ?? '');
      expect(opened.status).toBe(200);
      expect(opened.headers.get('set-cookie')).toMatch(/^toolgate_console_\d+=\S+; HttpOnly; SameSite=Strict; Path=\/$/);
      const locator = join(dir, '.toolgate', 'console.json');
      expect(statSync(locator).mode & 0o777).toBe(0o600);

      // A clean stop (the client closes stdin) withdraws it.
      const exited = new Promise((resolve) => gateway.once('exit', resolve));
      gateway.stdin.end();
      await exited;
      expect(existsSync(locator)).toBe(false);
      expect((await runCli(['console'], dir)).code).toBe(1);
    } finally {
      gateway.kill();
    }
  });

  it('ignores a locator left by a process that is gone, or one naming anything but a loopback URL', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolgate-console-'));
    writeFileSync(join(dir, 'toolgate.config.json'), JSON.stringify({}));
    const locator = join(dir, '.toolgate', 'console.json');
    const dead = spawn(process.execPath, ['-e', '0']);
    await new Promise((resolve) => dead.once('exit', resolve));
    mkdirSync(join(dir, '.toolgate'), { recursive: true });
    writeFileSync(locator, JSON.stringify({ url: 'http://127.0.0.1:1/?token=x', pid: dead.pid }));
    expect((await runCli(['console'], dir)).code).toBe(1);
    writeFileSync(locator, JSON.stringify({ url: 'https://evil.example/?token=x', pid: process.pid }));
    expect((await runCli(['console'], dir)).code).toBe(1);
  });
});
