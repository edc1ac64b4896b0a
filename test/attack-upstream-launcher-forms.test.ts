import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { closeAfterEach, makeWorkspace, serveWorkspace } from './support/serve-gateway.js';
import { runCli } from './support/spawn-cli.js';

/*
 * The forms a ninth attack on the launcher rules still got through: a script
 * named as the command whose `#!` line starts a runtime that reads the
 * working folder (the script's name was judged, not its interpreter); a
 * launcher further along the arguments of a command toolgate does not know
 * than the first two (`choom -n 500 -- env npx …`, the dynamic loader); and a
 * search path the configuration declares with an entry relative to the
 * working folder, the workspace (`PATH` put a repository's
 * `node_modules/.bin/npx` in place of npx). Each is refused at start, naming
 * the server and what to write instead, and the workspace's code never runs.
 */

const opened = closeAfterEach();
const scripts = mkdtempSync(join(tmpdir(), 'toolgate-attack-scripts-'));
afterAll(() => rmSync(scripts, { recursive: true, force: true }));

/** A script of the operator's, outside the workspace, executable. */
function script(name: string, text: string): string {
  const path = join(scripts, name);
  writeFileSync(path, text);
  chmodSync(path, 0o755);
  return path;
}

/** A program that leaves `marker` in its working directory: the repository's code ran. */
const payload = (marker: string): string => `#!/bin/sh\necho ran > "$PWD/${marker}"\n`;

/** What the workspace ships for every refused form: a module for Lua and PHP, a package and programs for npm, a library folder. */
const PLANTED = {
  'cjson.lua': 'io.open("PLANTED-LUA", "w"):write("ran")\nreturn {}\n',
  'Psr/Log/autoload.php': '<?php file_put_contents("PLANTED-PHP", "ran");\n',
  'node_modules/.bin/npx': payload('PLANTED-NPX'),
  'node_modules/.bin/node': payload('PLANTED-NPX'),
  'node_modules/@modelcontextprotocol/server-filesystem/package.json': JSON.stringify({ name: '@modelcontextprotocol/server-filesystem', version: '99.0.0', bin: { 'mcp-server-filesystem': 'index.js' } }),
  'node_modules/@modelcontextprotocol/server-filesystem/index.js': `#!/usr/bin/env node\nrequire('node:fs').writeFileSync('PLANTED-NPX', 'ran');\n`,
  '.npmrc': 'registry=http://127.0.0.1:9/\n',
  python3: payload('PLANTED-INTERPRETER'),
  'lib/json.rb': 'File.write("PLANTED-RUBY", "ran")\n',
  'lib/strict.pm': 'open(my $f, ">", "PLANTED-PERL"); print $f "ran"; close $f; 1;\n',
  '.RData': '',
  'rakelib/planted.rake': 'File.write("PLANTED-RUBY", "ran")\n',
  Gemfile: 'File.write("PLANTED-RUBY", "ran")\n',
};
const MARKERS = ['PLANTED-LUA', 'PLANTED-PHP', 'PLANTED-NPX', 'PLANTED-INTERPRETER', 'PLANTED-RUBY', 'PLANTED-PERL'];

async function refusedStart(server: object, message: RegExp): Promise<void> {
  const workspace = makeWorkspace({ servers: { up: server } }, PLANTED);
  for (const bin of ['node_modules/.bin/npx', 'node_modules/.bin/node', 'node_modules/@modelcontextprotocol/server-filesystem/index.js', 'python3']) chmodSync(join(workspace, bin), 0o755);
  const started = await runCli(['serve', '--http', '0', '--no-console'], workspace);
  expect(started.code, started.stderr).toBe(2);
  expect(started.stderr).toMatch(message);
  for (const marker of MARKERS) expect(existsSync(join(workspace, marker)), marker).toBe(false);
}

describe("attack: a script named as the command starts, through its #! line, a runtime that reads the working folder", () => {
  it.each([
    // Lua tries ./?.lua before the system's modules: the workspace's cjson.lua ran in place of lua-cjson.
    ['#!/usr/bin/env lua5.4', () => script('server.lua', '#!/usr/bin/env lua5.4\nrequire("cjson")\n'), /servers\.up: .*server\.lua starts lua5\.4 through its #! line: lua looks for a module in the working folder/],
    ['#!/usr/bin/lua5.4', () => script('direct.lua', '#!/usr/bin/lua5.4\nrequire("cjson")\n'), /servers\.up: .*direct\.lua starts \/usr\/bin\/lua5\.4 through its #! line: lua looks for a module/],
    ['#!/usr/bin/php', () => script('server.php', '#!/usr/bin/php\n<?php require "Psr/Log/autoload.php";\n'), /servers\.up: .*server\.php starts \/usr\/bin\/php through its #! line: php includes a file/],
    // A wrapper on the #! line passes the rest of the line to it as one argument: nice starts lua5.4.
    ['#!/usr/bin/nice lua5.4', () => script('nice.lua', '#!/usr/bin/nice /usr/bin/lua5.4\nrequire("cjson")\n'), /servers\.up: .*nice\.lua starts \/usr\/bin\/nice through its #! line: nice starts a command line toolgate does not read/],
    // env -S splits the line into a command line, which toolgate does not read.
    ['#!/usr/bin/env -S', () => script('split.lua', '#!/usr/bin/env -S lua5.4 -W\nrequire("cjson")\n'), /servers\.up: .*split\.lua starts \/usr\/bin\/env through its #! line: env is given an option toolgate does not read/],
    // A script whose interpreter is a script: judged down to the program the kernel starts.
    ['a script run by a script', () => script('outer.lua', `#!${script('inner-lua', '#!/usr/bin/env lua5.4\n')}\nrequire("cjson")\n`), /servers\.up: .*outer\.lua starts .*inner-lua through its #! line: .*inner-lua starts lua5\.4 through its #! line: lua looks for a module/],
    // A tenth attack. The kernel looks a relative interpreter up in the working folder: the workspace's python3 ran.
    ['#!python3', () => script('relative.py', '#!python3\nprint(1)\n'), /servers\.up: .*relative\.py names python3 on its #! line by a path relative to the working folder/],
    // With no line feed in its first 256 bytes the kernel reads 255 of them: `lua5.4` and a carriage return it never saw.
    ['a #! line past the buffer', () => script('long.lua', `#!/usr/bin/env${' '.repeat(235)}lua5.4\r${' '.repeat(20)}\nrequire("cjson")\n`), /servers\.up: .*long\.lua starts lua5\.4 through its #! line: lua looks/],
    // Ruby reads the switches of its #! line: -Ilib put the workspace's lib/json.rb in place of json.
    ['#!/usr/bin/ruby -Ilib', () => script('server.rb', '#!/usr/bin/ruby -Ilib\nrequire "json"\n'), /servers\.up: .*server\.rb starts \/usr\/bin\/ruby through its #! line: ruby -I holds lib, which is relative/],
    // npx named on the #! line would start without the folder toolgate gives it.
    ['#!/usr/bin/env npx', () => script('npx-script', '#!/usr/bin/env npx\n'), /servers\.up: .*npx-script starts npx through its #! line, which toolgate cannot give the options it gives npx: name npx as the command/],
  ])('%s: refused at start', async (_name, make, message) => {
    await refusedStart({ command: make(), args: ['.'] }, message);
  });

  it('a script whose #! line starts node or a shell starts as before', async () => {
    const upstream = fileURLToPath(new URL('fixtures/mcp/upstream-server.mjs', import.meta.url));
    const node = script('node-server', `#!/usr/bin/env node\nimport(${JSON.stringify(upstream)});\n`);
    const shell = script('shell-server', `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(upstream)}\n`);
    const workspace = makeWorkspace({ servers: { node: { command: node, connectTimeoutMs: 10_000 }, shell: { command: shell, connectTimeoutMs: 10_000 } } });
    const gateway = opened.gateway(await serveWorkspace(workspace, { args: ['--no-console'] }));
    expect(gateway.mcpUrl).toBeDefined();
  }, 40_000);
});

describe("attack: a launcher further along the arguments of a command toolgate does not know", () => {
  it.each([
    // choom takes -n and its value, then --: env, an everyday word, came second and npx third. choom is now refused by
    // name, and a wrapper of the operator's that does the same is read to its last argument.
    ['choom -n 500 -- env npx', { command: 'choom', args: ['-n', '500', '--', 'env', 'npx', '-y', '@modelcontextprotocol/server-filesystem', '.'] }, /servers\.up: choom starts a command line toolgate does not read/],
    [
      "a wrapper of the operator's, npx third",
      { command: script('with-oom', '#!/bin/sh\nshift 3\nexec "$@"\n'), args: ['-n', '500', '--', 'env', 'npx', '-y', '@modelcontextprotocol/server-filesystem', '.'] },
      /servers\.up: with-oom starts npx, a launcher toolgate does not read through a command it does not know/,
    ],
    // The dynamic loader runs the program it is given, with its own options first.
    ['ld.so', { command: '/lib64/ld-linux-x86-64.so.2', args: ['--library-path', '/usr/lib', '--argv0', 'lua', '/usr/bin/lua5.4', '/srv/mcp/server.lua'] }, /servers\.up: ld\.so starts a command line toolgate does not read/],
    // An eleventh attack: R behind an everyday word's exemption, Perl's switches in a cluster, code given on the command line.
    ["R behind a wrapper of the operator's", { command: script('with-log', '#!/bin/sh\nexec "$@"\n'), args: ['R', '--no-save', '-f', '/srv/mcp/server.R'] }, /servers\.up: with-log starts r, a launcher/],
    ['perl -wIlib', { command: 'perl', args: ['-wIlib', '-Mstrict', '-e', 'sleep 1'] }, /servers\.up: perl -I holds lib, which is relative/],
    ['perl -e exec npm', { command: 'perl', args: ['-e', 'exec "npm", "exec", "mcp-server-filesystem"'] }, /servers\.up: perl's code starts npm/],
    ['node -e', { command: 'node', args: ['-e', 'require("@modelcontextprotocol/server-filesystem")'] }, /servers\.up: node -e, -p, --eval and --print run code/],
    ['rake', { command: 'rake', args: ['-f', '/srv/mcp/Rakefile', 'serve'] }, /servers\.up: rake imports the workspace's rakelib/],
    // A twelfth: the working folder by another name, /proc/self/cwd, in java's class path and as Bundler's Gemfile, whose Ruby ran.
    ['java -cp /proc/self/cwd', { command: 'java', args: ['-cp', '/usr/share/java:/proc/self/cwd/classes', 'Server'] }, /servers\.up: java -cp holds \/proc\/self\/cwd\/classes, which is the working folder by another name/],
    ['BUNDLE_GEMFILE under /proc', { command: 'ruby', args: ['-rbundler/setup', '-e', 'sleep 1'], env: { BUNDLE_GEMFILE: '/proc/self/cwd/Gemfile' } }, /servers\.up: BUNDLE_GEMFILE holds \/proc\/self\/cwd\/Gemfile, which is the working folder by another name/],
    ['ld.so by its Debian name', { command: 'ld.so', args: ['/usr/bin/lua5.4', '/srv/mcp/server.lua'] }, /servers\.up: ld\.so starts a command line toolgate does not read/],
    // A tenth attack: a launcher inside an argument that is a command line, and a script handed to a wrapper.
    ["a command line in an argument", { command: script('run-as', '#!/bin/sh\nshift 2\nexec /bin/sh -c "$1"\n'), args: ['--', '-c', 'npx -y @modelcontextprotocol/server-filesystem .'] }, /servers\.up: run-as starts npx/],
    ["a Lua script handed to a wrapper of the operator's", { command: script('with-limits', '#!/bin/sh\nulimit -n 4096\nexec "$@"\n'), args: [script('handed.lua', '#!/usr/bin/env lua5.4\nrequire("cjson")\n')] }, /servers\.up: a script among its arguments is refused: .*handed\.lua starts lua5\.4 through its #! line: lua looks/],
  ])('%s: refused at start', async (_name, server, message) => {
    await refusedStart(server, message);
  });
});

describe('attack: the configuration declares a search path relative to the working folder, the workspace', () => {
  it.each([
    // spawn looks the command up on the PATH it is given: the workspace's node_modules/.bin/npx ran in place of npx.
    ['PATH', { PATH: 'node_modules/.bin:/usr/bin:/bin' }, /servers\.up: PATH holds node_modules\/\.bin, which is relative to the working folder/],
    ['an empty PATH entry', { PATH: '/usr/bin::/bin' }, /servers\.up: PATH holds an empty entry, which is the working folder/],
    ['LD_LIBRARY_PATH', { LD_LIBRARY_PATH: 'lib' }, /servers\.up: LD_LIBRARY_PATH holds lib, which is relative/],
    ['LD_PRELOAD', { LD_PRELOAD: 'planted.so' }, /servers\.up: LD_PRELOAD holds planted\.so, which is relative/],
    ['PYTHONPATH', { PYTHONPATH: 'src' }, /servers\.up: PYTHONPATH holds src, which is relative/],
    ['NODE_PATH', { NODE_PATH: './node_modules' }, /servers\.up: NODE_PATH holds \.\/node_modules, which is relative/],
    ['RUBYLIB', { RUBYLIB: '/srv/lib:lib' }, /servers\.up: RUBYLIB holds lib, which is relative/],
    ['ERL_LIBS', { ERL_LIBS: 'deps' }, /servers\.up: ERL_LIBS holds deps, which is relative/],
    ['R_LIBS_USER', { R_LIBS_USER: 'renv/library' }, /servers\.up: R_LIBS_USER holds renv\/library, which is relative/],
    ['PERL5LIB', { PERL5LIB: 'local/lib/perl5' }, /servers\.up: PERL5LIB holds local\/lib\/perl5, which is relative/],
    // A relative home is the workspace's dotfiles: its .npmrc chose the registry.
    ['HOME', { HOME: '.' }, /servers\.up: HOME holds \., which is relative/],
    ['npm_config_userconfig', { npm_config_userconfig: '.npmrc' }, /servers\.up: npm_config_userconfig holds \.npmrc, which is relative/],
    // A tenth attack: glibc splits the library path at `;` too, /proc/self/cwd is the working folder, and RUBYOPT's -I.
    ['LD_LIBRARY_PATH with ;', { LD_LIBRARY_PATH: '/usr/local/lib;' }, /servers\.up: LD_LIBRARY_PATH holds an empty entry, which is the working folder/],
    ['HOME under /proc', { HOME: '/proc/self/cwd' }, /servers\.up: HOME holds \/proc\/self\/cwd, which is the working folder by another name/],
    ['RUBYOPT', { RUBYOPT: '-Ilib' }, /servers\.up: RUBYOPT holds lib, which is relative/],
    // An eleventh attack: /dev/fd links into /proc, so /dev/fd/../cwd is the working folder; Perl's own switch for `.`.
    ['PATH through /dev/fd', { PATH: '/dev/fd/../cwd/node_modules/.bin:/usr/bin:/bin' }, /servers\.up: PATH holds \/dev\/fd\/\.\.\/cwd\/node_modules\/\.bin, which is the working folder by another name/],
    ['PERL_USE_UNSAFE_INC', { PERL_USE_UNSAFE_INC: '1' }, /servers\.up: PERL_USE_UNSAFE_INC holds \./],
  ])('%s: refused at start', async (_name, env, message) => {
    await refusedStart({ command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '.'], env: { npm_config_offline: 'true', ...env } }, message);
  });

  it('the same variables naming absolute folders start as configured', async () => {
    const upstream = fileURLToPath(new URL('fixtures/mcp/upstream-server.mjs', import.meta.url));
    const lib = join(scripts, 'lib');
    mkdirSync(lib, { recursive: true });
    const env = { PATH: '/usr/local/bin:/usr/bin:/bin', PYTHONPATH: lib, NODE_PATH: lib, LD_LIBRARY_PATH: lib, HOME: scripts };
    const workspace = makeWorkspace({ servers: { up: { command: process.execPath, args: [upstream], env, connectTimeoutMs: 10_000 } } });
    const gateway = opened.gateway(await serveWorkspace(workspace, { args: ['--no-console'] }));
    expect(gateway.mcpUrl).toBeDefined();
  }, 40_000);
});
