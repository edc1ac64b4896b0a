import { describe, expect, it } from 'vitest';
import { processCpuMs } from './support/process-cpu.js';
import { closeAfterEach, connectClient, makeWorkspace, serveGateway } from './support/serve-gateway.js';
import { runCli } from './support/spawn-cli.js';

// An operator's path rule with several wildcards (`Read(**/*a*a*b)`, `Write(**/a/**/b/**/c)`) or protected path
// (`*q*q*z`, `**/q/**/r/**/z`) is read against the path of every call. Matched by backtracking regular expressions,
// one read of 4,000 `a`s would hold the gateway's thread 20 s, a path of 2,000 `q/r` folders 4.8 s. Each glob is
// matched by an automaton that keeps every live state at once: a hostile path full of a rule's letters and without
// its last costs its length times the pattern's, a read beside it answers at once, and the rules still decide what
// they name.

const open = closeAfterEach();

const text = (result: object): string => JSON.stringify('content' in result ? result.content : result);

describe('attack: a path that makes a path rule with many wildcards take the gateway’s thread', () => {
  it('a read beside the calls answers within seconds, and each rule still decides what it names', async () => {
    const gateway = open.gateway(
      await serveGateway(
        {
          scope: 'workspace-write',
          mode: 'auto',
          console: { enabled: false },
          policy: { allow: ['Write'], deny: ['Read(**/*a*a*b)', 'Read(**/*a*a*b*c)'], ask: ['Write(**/a/**/b/**/c)'], protectedPaths: ['*q*q*z', '**/q/**/r/**/z'] },
        },
        { files: { 'notes.md': 'a\n' } },
      ),
    );
    const { client } = await connectClient(gateway.mcpUrl, 'attacker', undefined, gateway.auth);
    open.client(client);
    const call = (name: string, args: Record<string, unknown>) => client.callTool({ name, arguments: args }, undefined, { timeout: 120_000 });
    const started = Date.now();
    // One name of 4,000 letters (each wildcard of the rule may take any run of it), and 1,100 folders for the `**`s.
    const heavy = Promise.all([
      call('read_file', { path: 'a'.repeat(4000) }),
      call('read_file', { path: `x/${'a'.repeat(4000)}` }),
      // Holding every letter a rule's glob needs, its last one last: only the automaton can say no.
      call('read_file', { path: `b${'a'.repeat(4000)}c` }),
      call('read_file', { path: `z/${'q/r/'.repeat(1000)}x` }),
      call('write_file', { path: `${'a/b/'.repeat(1100)}x`, content: 'x' }),
      call('write_file', { path: 'q'.repeat(4000), content: 'x' }),
      call('read_file', { path: `${'q/r/'.repeat(1000)}x` }),
    ]);
    const read = await call('read_file', { path: 'notes.md' });
    expect(read.isError).not.toBe(true);
    expect(Date.now() - started).toBeLessThan(3_000);
    const answers = await heavy;
    expect(Date.now() - started).toBeLessThan(5_000);
    // None of the hostile paths is one a rule names: none is refused by a rule (each fails later: a name too long).
    for (const answer of answers) {
      expect(answer.isError).toBe(true);
      expect(text(answer)).not.toMatch(/policy rule|approv|protected/i);
    }
    // The rules still decide for the paths they name (as long as a file system takes them).
    const denied = await call('read_file', { path: `x/${'a'.repeat(200)}B` });
    expect(denied.isError).toBe(true);
    expect(text(denied)).toMatch(/refused by policy rule .*Read\(\*\*\/\*a\*a\*b\)/);
    const asked = await call('write_file', { path: `${'a/b/'.repeat(20)}c`, content: 'x' });
    expect(asked.isError).toBe(true);
    expect(text(asked)).toMatch(/needs an approval/);
    const guarded = await call('write_file', { path: `${'q'.repeat(200)}z`, content: 'x' });
    expect(guarded.isError).toBe(true);
    expect(text(guarded)).toMatch(/needs an approval/);
    const below = await call('write_file', { path: 'q/x/r/y/z', content: 'x' });
    expect(below.isError).toBe(true);
    expect(text(below)).toMatch(/needs an approval/);
    // And what they do not name goes through.
    for (const path of [`${'q'.repeat(200)}.md`, 'q/x/r/y/w', `${'a/b/'.repeat(20)}d`]) {
      const written = await call('write_file', { path, content: 'x' });
      expect(written.isError, path).not.toBe(true);
    }
    expect(Date.now() - started).toBeLessThan(10_000);
  }, 240_000);
});

// A range in braces names every value between its ends, as a shell expands it: `key{1..12}` is key1 to key12,
// `{01..20}` is 01 to 20 with its zeros. picomatch, left to itself, reads `{1..12}` as the class `[1-12]` (a 1 or
// a 2), so a deny of `Read(secrets/key{1..12}.txt)` left `secrets/key7.txt` readable to any model.
describe('attack: a file a deny rule names through a range in braces', () => {
  it('is refused for every value of the range, and a name outside it is read', async () => {
    const files: Record<string, string> = { 'secrets/key0.txt': 'public\n', 'secrets/key13.txt': 'public\n', 'dumps/c21.sql': 'public\n' };
    for (const name of ['secrets/key1.txt', 'secrets/key7.txt', 'secrets/key12.txt', 'dumps/a01.sql', 'dumps/c07.sql', 'dumps/f20.sql', 'logs/15.log']) files[name] = 'SECRET\n';
    const gateway = open.gateway(
      await serveGateway(
        { scope: 'workspace-write', mode: 'auto', console: { enabled: false }, policy: { deny: ['Read(secrets/key{1..12}.txt)', 'Read(dumps/{a..f}{01..20}.sql)', 'Read(logs/{0..20..5}.log)'] } },
        { files },
      ),
    );
    const { client } = await connectClient(gateway.mcpUrl, 'attacker', undefined, gateway.auth);
    open.client(client);
    const read = (path: string) => client.callTool({ name: 'read_file', arguments: { path } });
    for (const path of ['secrets/key1.txt', 'secrets/key7.txt', 'secrets/key12.txt', 'dumps/a01.sql', 'dumps/c07.sql', 'dumps/f20.sql', 'logs/15.log']) {
      const answer = await read(path);
      expect(answer.isError, path).toBe(true);
      expect(text(answer), path).toMatch(/refused by policy rule/);
      expect(text(answer), path).not.toContain('SECRET');
    }
    for (const path of ['secrets/key0.txt', 'secrets/key13.txt', 'dumps/c21.sql']) {
      const answer = await read(path);
      expect(answer.isError, path).not.toBe(true);
      expect(text(answer), path).toContain('public');
    }
  }, 60_000);
});

// picomatch answers a glob whose reading is no regular expression (a brace left open, a trailing backslash, a range
// after a brace inside a brace) with one that matches nothing: a deny of `Read(backups/*.{sql,dump)` loaded, said
// nothing was wrong, and denied nothing, not even the name as gitignore reads it. Such a glob is now refused.
describe('attack: a deny whose glob picomatch reads as no regular expression', () => {
  const files = { 'backups/db.sql': 'SECRET\n', 'backups/db.{sql,dump': 'SECRET\n', 'notes.md': 'public\n' };

  it('written in the configuration: the start is refused, naming the rule', async () => {
    const workspace = makeWorkspace({ scope: 'workspace-write', mode: 'auto', console: { enabled: false }, policy: { deny: ['Read(backups/*.{sql,dump)'] } }, files);
    // A gateway that started would serve until stopped: the call answers either way, and the start must not happen.
    const called = await runCli(['call', 'read_file', '{"path":"backups/db.{sql,dump"}'], workspace);
    expect(called.stdout).not.toContain('SECRET');
    expect(called.code, called.stdout).toBe(2);
    expect(called.stderr).toMatch(/Read\(backups\/\*\.\{sql,dump\).*cannot load/s);
  }, 60_000);

  it('imported from a project’s Claude Code settings: the deny covers the whole tool, as one toolgate cannot read does', async () => {
    const gateway = open.gateway(
      await serveGateway(
        { scope: 'workspace-write', mode: 'auto', console: { enabled: false }, policy: { imports: [{ from: 'claude', path: '.claude/settings.json' }] } },
        { files: { ...files, '.claude/settings.json': JSON.stringify({ permissions: { deny: ['Read(./backups/*.{sql,dump)'] } }) } },
      ),
    );
    const { client } = await connectClient(gateway.mcpUrl, 'attacker', undefined, gateway.auth);
    open.client(client);
    // Denied whole, read_file is not offered at all.
    for (const path of ['backups/db.sql', 'backups/db.{sql,dump', 'notes.md']) {
      const answer = await client.callTool({ name: 'read_file', arguments: { path } });
      expect(answer.isError, path).toBe(true);
      expect(text(answer), path).toMatch(/Unknown tool \\"read_file\\"/);
      expect(text(answer), path).not.toContain('SECRET');
    }
  }, 60_000);
});

// Each range in braces once became one alternative for each value: `{1..1000}`, nine bytes of a settings file,
// compiled to about 4,000 states. A project's `.claude/settings.json` of 1,000 such denies, imported, held the
// gateway's start 11 s and 840 MB; one deny of 7,000 ranges (56 KB) 25 s and 2.7 GB before it was refused.
describe('attack: an imported settings file of many ranges in braces', () => {
  const serveImported = async (deny: readonly string[], files: Record<string, string>) => {
    const gateway = open.gateway(
      await serveGateway(
        { scope: 'workspace-write', mode: 'auto', console: { enabled: false }, policy: { imports: [{ from: 'claude', path: '.claude/settings.json' }] } },
        { files: { ...files, '.claude/settings.json': JSON.stringify({ permissions: { deny } }) } },
      ),
    );
    const startCpuMs = processCpuMs(gateway.cli.child.pid as number);
    const { client } = await connectClient(gateway.mcpUrl, 'attacker', undefined, gateway.auth);
    open.client(client);
    return { startCpuMs, read: (path: string) => client.callTool({ name: 'read_file', arguments: { path } }) };
  };

  it('2,000 ranges and 2,000 stepped ranges load within seconds of CPU time, and each still denies what it names', async () => {
    const deny = [...Array(2000).keys()].flatMap((index) => [`Read(d${index}/{1..1000})`, `Read(s${index}/{0..198..2})`]);
    const { startCpuMs, read } = await serveImported(deny, { 'd7/735': 'SECRET\n', 'd7/1001': 'public\n', 's3/196': 'SECRET\n', 's3/197': 'public\n' });
    expect(startCpuMs, `the start took ${Math.round(startCpuMs)} ms of CPU time`).toBeLessThan(5_000);
    for (const path of ['d7/735', 's3/196']) expect(text(await read(path)), path).toMatch(/refused by policy rule/);
    for (const path of ['d7/1001', 's3/197']) expect(text(await read(path)), path).toContain('public');
  }, 120_000);

  it('one deny of 7,000 ranges is refused at once, and covers the whole tool', async () => {
    const { startCpuMs, read } = await serveImported([`Read(huge/${'{1..999}'.repeat(7000)})`], { 'notes.md': 'public\n' });
    expect(startCpuMs, `the start took ${Math.round(startCpuMs)} ms of CPU time`).toBeLessThan(5_000);
    expect(text(await read('notes.md'))).toMatch(/Unknown tool \\"read_file\\"/);
  }, 120_000);
});
