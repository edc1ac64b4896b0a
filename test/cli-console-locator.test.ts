import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/cli/config/load-config.js';
import { stateRecord } from '../src/cli/runtime/state-record.js';
import { CLI, runCli } from './support/spawn-cli.js';

/**
 * A `toolgate serve --stdio` child in `dir`, once it has announced its console: the address on stderr, which its MCP
 * client reads, and the URL with its token, which only its own locator holds.
 */
async function stdioGateway(dir: string): Promise<{ gateway: ChildProcessWithoutNullStreams; url: string }> {
  const gateway = spawn(process.execPath, [CLI, 'serve', '--stdio'], { cwd: dir, env: { ...process.env, NO_COLOR: '1' } });
  let stderr = '';
  gateway.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  await expect.poll(() => stderr, { timeout: 60_000 }).toMatch(/console: http:\/\/127\.0\.0\.1:\d+\/ /);
  const announced = /console: (\S+)/.exec(stderr)?.[1] ?? '';
  const url = (JSON.parse(readFileSync(join(dir, '.toolgate', `console-${String(gateway.pid)}.json`), 'utf8')) as { url: string }).url;
  expect(url.startsWith(`${announced}?token=`)).toBe(true);
  expect(stderr).not.toContain(new URL(url).searchParams.get('token'));
  return { gateway, url };
}

/** A clean stop: the client closes stdin. */
async function stopGateway(gateway: ChildProcessWithoutNullStreams): Promise<void> {
  const exited = new Promise((resolve) => gateway.once('exit', resolve));
  gateway.stdin.end();
  await exited;
}

/** `toolgate console` finds the console of a gateway an MCP client started over stdio, whose stderr nobody reads. */
describe('toolgate console', () => {
  it('prints the running console URL, from a file only the user can read, and nothing once the gateway stops', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolgate-console-'));
    writeFileSync(join(dir, 'toolgate.config.json'), JSON.stringify({ console: { enabled: true } }));
    expect(await runCli(['console'], dir)).toMatchObject({ code: 1, stderr: expect.stringContaining('No console is running') });

    const { gateway, url: announced } = await stdioGateway(dir);
    try {
      const found = await runCli(['--json', 'console'], dir);
      expect(found.code).toBe(0);
      expect(JSON.parse(found.stdout)).toMatchObject({ url: announced, pid: gateway.pid });
      expect((await runCli(['console'], dir)).stdout.trim()).toBe(announced);
      // The URL it prints opens the console, which moves the token into its cookie.
      const opened = await fetch(announced);
      expect(opened.status).toBe(200);
      expect(opened.headers.get('set-cookie')).toMatch(/^toolgate_console_\d+=\S+; HttpOnly; SameSite=Strict; Path=\/$/);
      const locator = join(dir, '.toolgate', 'console.json');
      expect(statSync(locator).mode & 0o777).toBe(0o600);

      // A clean stop (the client closes stdin) withdraws it.
      await stopGateway(gateway);
      expect(existsSync(locator)).toBe(false);
      expect((await runCli(['console'], dir)).code).toBe(1);
    } finally {
      gateway.kill();
    }
  });

  it('keeps one locator per gateway: two gateways for one config are both listed, and the first to stop leaves the other findable', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolgate-console-'));
    writeFileSync(join(dir, 'toolgate.config.json'), JSON.stringify({ console: { enabled: true } }));
    const first = await stdioGateway(dir);
    try {
      const second = await stdioGateway(dir);
      try {
        const own = (pid: number | undefined) => join(dir, '.toolgate', `console-${String(pid)}.json`);
        for (const { gateway, url } of [first, second]) {
          expect(statSync(own(gateway.pid)).mode & 0o777).toBe(0o600);
          expect(JSON.parse(readFileSync(own(gateway.pid), 'utf8'))).toMatchObject({ url, pid: gateway.pid });
        }
        // console.json, which readers used before, names the newest gateway.
        expect(JSON.parse(readFileSync(join(dir, '.toolgate', 'console.json'), 'utf8'))).toMatchObject({ url: second.url, pid: second.gateway.pid });

        const both = await runCli(['--json', 'console'], dir);
        expect(both.code).toBe(0);
        const listed = JSON.parse(both.stdout) as { url: string; pid: number; consoles: { url: string; pid: number }[] };
        expect(listed).toMatchObject({ url: second.url, pid: second.gateway.pid });
        expect(listed.consoles.map(({ url, pid }) => ({ url, pid }))).toEqual([
          { url: second.url, pid: second.gateway.pid },
          { url: first.url, pid: first.gateway.pid },
        ]);
        const lines = (await runCli(['console'], dir)).stdout.trim().split('\n');
        expect(lines).toEqual([expect.stringContaining(`${second.url}  (pid ${String(second.gateway.pid)}, started `), expect.stringContaining(`${first.url}  (pid ${String(first.gateway.pid)}, started `)]);

        // The first stops: only its own locator goes; the second's, and console.json, stay.
        await stopGateway(first.gateway);
        expect(existsSync(own(first.gateway.pid))).toBe(false);
        expect(existsSync(own(second.gateway.pid))).toBe(true);
        expect(JSON.parse(readFileSync(join(dir, '.toolgate', 'console.json'), 'utf8'))).toMatchObject({ pid: second.gateway.pid });
        const one = await runCli(['--json', 'console'], dir);
        expect(JSON.parse(one.stdout)).toMatchObject({ url: second.url, pid: second.gateway.pid, consoles: [{ url: second.url, pid: second.gateway.pid }] });
        expect((await runCli(['console'], dir)).stdout.trim()).toBe(second.url);

        await stopGateway(second.gateway);
        expect(readdirSync(join(dir, '.toolgate')).filter((name) => name.startsWith('console'))).toEqual([]);
        expect((await runCli(['console'], dir)).code).toBe(1);
      } finally {
        second.gateway.kill();
      }
    } finally {
      first.gateway.kill();
    }
  });

  it('lists the newest gateway still running when the newest has stopped, and removes the locator of one killed before it could', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolgate-console-'));
    writeFileSync(join(dir, 'toolgate.config.json'), JSON.stringify({ console: { enabled: true } }));
    const first = await stdioGateway(dir);
    try {
      const second = await stdioGateway(dir);
      const killedLocator = join(dir, '.toolgate', `console-${String(second.gateway.pid)}.json`);
      const killed = new Promise((resolve) => second.gateway.once('exit', resolve));
      second.gateway.kill('SIGKILL');
      await killed;
      expect(existsSync(killedLocator)).toBe(true);
      const found = await runCli(['--json', 'console'], dir);
      expect(JSON.parse(found.stdout)).toMatchObject({ url: first.url, pid: first.gateway.pid, consoles: [{ url: first.url, pid: first.gateway.pid }] });
      expect(existsSync(killedLocator)).toBe(false);
      // console.json named the killed one: gone too, and the first is still found.
      expect(existsSync(join(dir, '.toolgate', 'console.json'))).toBe(false);
      expect((await runCli(['console'], dir)).stdout.trim()).toBe(first.url);
    } finally {
      first.gateway.kill();
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
    // A gateway's own locator: one of a process that is gone is removed, one naming another pid than its file is skipped.
    writeFileSync(locator, '');
    const stale = join(dir, '.toolgate', `console-${String(dead.pid)}.json`);
    writeFileSync(stale, JSON.stringify({ url: 'http://127.0.0.1:1/?token=x', pid: dead.pid }));
    const misnamed = join(dir, '.toolgate', `console-${String(process.pid)}.json`);
    writeFileSync(misnamed, JSON.stringify({ url: 'http://127.0.0.1:1/?token=x', pid: process.ppid }));
    expect((await runCli(['console'], dir)).code).toBe(1);
    expect(existsSync(stale)).toBe(false);
    // Alive and well formed: listed once this user's toolgate vouches for it, as it does for the locators it writes.
    const home = mkdtempSync(join(tmpdir(), 'toolgate-console-home-'));
    const alive = JSON.stringify({ url: 'http://127.0.0.1:1/?token=x', pid: process.pid });
    writeFileSync(misnamed, alive);
    expect((await runCli(['console'], dir, undefined, { HOME: home })).code).toBe(1);
    stateRecord(loadConfig(dir), home, 'console-locators.json').remember(misnamed, alive);
    expect((await runCli(['console'], dir, undefined, { HOME: home })).stdout.trim()).toBe('http://127.0.0.1:1/?token=x');
  });
});
