import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { launcherArgs, refusedLauncher } from './upstream-launcher.js';

/*
 * The forms the ninth to eleventh attacks on the launcher rules found, as
 * arguments: scripts judged by their `#!` line, launchers anywhere among an
 * unknown command's arguments or in its code, and search paths or options
 * naming the working folder. `test/attack-upstream-launcher-forms.test.ts`
 * tries them through `toolgate serve`.
 */

/** Run `check` with a folder of scripts the operator installed (`script` writes one, executable), removed after. */
function withScripts(check: (script: (name: string, text: string) => string, folder: string) => void): void {
  const folder = mkdtempSync(join(tmpdir(), 'toolgate-scripts-'));
  try {
    check((name, text) => {
      writeFileSync(join(folder, name), text, { mode: 0o755 });
      return join(folder, name);
    }, folder);
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

describe('refusedLauncher, a ninth attack', () => {
  it("judges a script named as the command by the program its #! line starts, with the arguments the kernel gives it", () => {
    withScripts((script, folder) => {
      expect(refusedLauncher(script('s.lua', '#!/usr/bin/env lua5.4\n'), [])).toMatch(/s\.lua starts lua5\.4 through its #! line: lua looks for a module in the working folder/);
      expect(refusedLauncher(script('ok.lua', '#!/usr/bin/env lua5.4\n'), [], { LUA_PATH: '/srv/lua/?.lua', LUA_CPATH: '/srv/lua/?.so' })).toBeUndefined();
      expect(refusedLauncher(script('s.php', '#! \t/usr/bin/php -q \n<?php\n'), [])).toMatch(/s\.php starts \/usr\/bin\/php through its #! line: php includes/);
      expect(refusedLauncher(script('pyrun', '#!/usr/bin/python3 -m\n'), [])).toMatch(/pyrun starts \/usr\/bin\/python3 through its #! line, which toolgate cannot give the options it gives python/);
      // A script that names itself never ends: judged down to Linux's own limit, and refused there.
      const loop = join(folder, 'loop');
      script('loop', `#!${loop}\n`);
      expect(refusedLauncher(loop, [])).toMatch(/a script more than Linux starts \(4 deep\)/);
      // node, Python and a shell start their script as a program of their own; a compiled program has no #! line.
      for (const text of ['#!/usr/bin/env node\n', '#!/usr/bin/python3\n', '#!/bin/sh\nexec /usr/bin/lua5.4 "$@"\n', '#!/usr/bin/env bash\n', '\u007fELF']) expect(refusedLauncher(script('ok', text), ['--port', '3000']), text).toBeUndefined();
      // A shell script still starts no launcher among its arguments unread.
      expect(refusedLauncher(script('wrap', '#!/bin/sh\nexec "$@"\n'), ['npx', '-y', 'pkg'])).toMatch(/wrap starts npx, a launcher toolgate does not read/);
    });
  });

  it('looks a command up where spawn does: on the PATH the configuration declares, when it declares one', () => {
    const folder = mkdtempSync(join(tmpdir(), 'toolgate-declared-path-'));
    try {
      writeFileSync(join(folder, 'srv'), '#!/usr/bin/env lua5.4\n', { mode: 0o755 });
      symlinkSync(join(dirname(process.execPath), 'npx'), join(folder, 'my-npx'));
      const declared = { PATH: `${folder}:/usr/bin:/bin` };
      expect(refusedLauncher('srv', [], declared)).toMatch(/^srv starts lua5\.4 through its #! line: lua looks/);
      expect(launcherArgs('my-npx', ['pkg'], '/n', declared)).toEqual(['--prefix=/n', '--script-shell=/n/npm-script-shell', 'pkg']);
      // Not on the fixed PATH, the same names are no program toolgate knows.
      expect(refusedLauncher('srv', [])).toBeUndefined();
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it("reads every argument of a command it does not know for a launcher, but a folder's name", () => {
    expect(refusedLauncher('choom', ['-n', '500', '--', 'env', 'npx', '-y', 'pkg'])).toMatch(/^choom starts a command line toolgate does not read/);
    expect(refusedLauncher('/opt/mcp/wrapper', ['-n', '500', '--', 'env', 'npx', '-y', 'pkg'])).toMatch(/^wrapper starts npx/);
    expect(refusedLauncher('/opt/mcp/wrapper', ['--root', '/srv', '--mode', 'fast', '/usr/bin/lua5.4'])).toMatch(/^wrapper starts lua/);
    for (const loader of ['/lib64/ld-linux-x86-64.so.2', 'ld.so', '/lib/ld-linux-aarch64.so.1']) expect(refusedLauncher(loader, ['/usr/bin/lua5.4', '/srv/s.lua']), loader).toMatch(/^ld\.so starts a command line toolgate does not read/);
    const folder = mkdtempSync(join(tmpdir(), 'toolgate-python-'));
    try {
      const python = join(folder, 'python');
      // Not there, it may name a program of that name, and counts; a folder is no program.
      expect(refusedLauncher('/opt/mcp/server', ['--root', python])).toMatch(/^server starts python/);
      mkdirSync(python);
      expect(refusedLauncher('/opt/mcp/server', ['--root', python])).toBeUndefined();
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it('refuses a declared search path with an empty or relative entry, for any command', () => {
    for (const [name, value] of [['PATH', 'node_modules/.bin:/usr/bin'], ['PATH', '/usr/bin:'], ['LD_PRELOAD', '/usr/lib/a.so x.so'], ['PYTHONPATH', 'src'], ['HOME', '~'], ['NPM_CONFIG_USERCONFIG', '.npmrc'], ['DENO_DIR', '.deno'], ['R_LIBS', '']] as const) {
      expect(refusedLauncher('/opt/mcp/server', [], { [name]: value }), `${name}=${value}`).toMatch(new RegExp(`^${name} holds .*(?:relative to|is) the working folder`));
    }
    // Through env's own settings too, and spelt out in full: the operator's folders.
    expect(refusedLauncher('env', ['PYTHONPATH=lib', 'python3', '/srv/s.py'])).toMatch(/^PYTHONPATH holds lib/);
    expect(refusedLauncher('/opt/mcp/server', [], { PATH: '/usr/local/bin:/usr/bin', LD_PRELOAD: '/usr/lib/a.so  /usr/lib/b.so', PYTHONPATH: '/srv/lib', HOME: '/home/me', LOG_DIR: 'logs' })).toBeUndefined();
  });
});

describe('refusedLauncher, a tenth attack', () => {
  it("refuses a #! line naming its interpreter by a relative path, and judges a script among an unknown command's arguments", () => {
    withScripts((script) => {
      for (const line of ['#!python3', '#!bin/x', '#! node', '#!/usr/bin/env ./server', '#!/usr/bin/env bin/lua']) expect(refusedLauncher(script('rel', `${line}\n`), []), line).toMatch(/names .* on its #! line by a path relative to the working folder/);
      const lua = script('srv.lua', '#!/usr/bin/env lua5.4\nrequire("cjson")\n');
      for (const [command, args] of [[script('with-limits.sh', '#!/bin/sh\nexec "$@"\n'), [lua]], ['/usr/bin/nsenter2', ['--target', '1', lua, '--port', '1']]] as const) {
        expect(refusedLauncher(command, [...args]), command).toMatch(/a script among its arguments is refused: .*srv\.lua starts lua5\.4 through its #! line: lua looks/);
      }
      for (const [line, message] of [['#!/usr/bin/ruby -Ilib', /ruby -I holds lib/], ['#!/usr/bin/perl -w -Ilib', /perl -I holds lib/], ['#!/usr/bin/ruby -r./boot', /ruby -I holds \.\/boot/]] as const) {
        expect(refusedLauncher(script('inc', `${line}\n`), []), line).toMatch(message);
      }
      expect(refusedLauncher(script('inc', '#!/usr/bin/perl -w -I/srv/lib\n'), [])).toBeUndefined();
    });
  });

  it('reads the words of an argument that reads as a command line, and refuses more wrappers by name', () => {
    expect(refusedLauncher('/usr/sbin/capsh2', ['--drop=cap_net_raw', '--', '-c', 'npx -y pkg .'])).toMatch(/^capsh2 starts npx/);
    expect(refusedLauncher('/usr/bin/git', ['-c', 'alias.s=!npx -y x', 's'])).toMatch(/^git starts npx/);
    for (const wrapper of ['capsh', 'nsenter', 'uclampset', 'start-stop-daemon', 'numactl', 'busybox']) expect(refusedLauncher(wrapper, ['/srv/s']), wrapper).toMatch(/starts a command line toolgate does not read/);
  });

  it("refuses a search path split as glibc splits it, one under /proc, and options naming files of the working folder", () => {
    for (const [name, value] of [['LD_LIBRARY_PATH', '/usr/local/lib;'], ['LD_LIBRARY_PATH', '/usr/local/lib;lib'], ['LD_PRELOAD', '/usr/lib/a.so\tx.so'], ['HOME', '/proc/self/cwd'], ['HOME', '/tmp/../proc/self/cwd'], ['HOME', '//proc/./self/cwd'], ['PYTHONPATH', '/srv:/proc/1234/cwd'], ['BASH_ENV', 'env.sh'], ['RUBYOPT', '-w -Ilib'], ['PERL5OPT', '-I lib'], ['JAVA_TOOL_OPTIONS', '-Xmx1g -javaagent:agent.jar=x'], ['LUA_INIT', '@init.lua']] as const) {
      expect(refusedLauncher('/opt/mcp/server', [], { [name]: value }), `${name}=${value}`).toMatch(new RegExp(`^${name} holds .*the working folder`));
    }
    expect(refusedLauncher('/opt/mcp/server', [], { RUBYOPT: '-W0 -I/srv/lib', JAVA_TOOL_OPTIONS: '-javaagent:/opt/agent.jar', LUA_INIT: 'print(1)', BASH_ENV: '/etc/profile' })).toBeUndefined();
  });
});

describe('refusedLauncher, an eleventh attack', () => {
  it("reads R by its own name among an unknown command's arguments, and code given to perl, ruby, python and node", () => {
    withScripts((script) => {
      const wrapper = script('with-log', '#!/bin/sh\nexec "$@"\n');
      for (const args of [['R', '--no-save', '-f', '/srv/s.R'], ['env', 'R', '-f', '/srv/s.R']]) expect(refusedLauncher(wrapper, args), args.join(' ')).toMatch(/^with-log starts r, a launcher/);
      // An everyday word as written is still no launcher.
      expect(refusedLauncher(wrapper, ['/opt/mcp/server', '--mode', 'r'])).toBeUndefined();
      expect(refusedLauncher(wrapper, ['git', '-c', 'alias.mcp=!n\\px mcp-x', 'mcp'])).toMatch(/^with-log starts npx/);
    });
    expect(refusedLauncher('perl', ['-e', 'exec "npm", "exec", "mcp-x"'])).toMatch(/^perl's code starts npm/);
    expect(refusedLauncher('ruby', ['-we', 'exec("npx", "-y", "x")'])).toMatch(/^ruby's code starts npx/);
    expect(refusedLauncher('python3', ['-c', 'import os; os.execvp("npx", ["npx", "x"])'])).toMatch(/^python's code starts npx/);
    for (const args of [['-e', 'require("pkg")'], ['-pe', '1'], ['--eval=import "pkg"'], ['--input-type=module', '--print', '1']]) expect(refusedLauncher('node', args), args.join(' ')).toMatch(/^node -e, -p, --eval and --print run code/);
    expect(refusedLauncher('perl', ['-e', 'print 1', '/srv/s.pl'])).toBeUndefined();
    // A script of an interpreter with no rule here is that interpreter's program, not a script handed on.
    withScripts((script) => {
      for (const line of ['#!/usr/bin/awk -f', '#!/usr/bin/tclsh', '#!/opt/none/interpreter', '#!/usr/bin/env escript', '#!/usr/bin/env tclsh']) expect(refusedLauncher(script('server', `${line}\n`), []), line).toBeUndefined();
      // A chain that comes back on itself through env (env given `awk -f` as one name) ends at Linux's depth, refused.
      expect(refusedLauncher(script('looping', '#!/usr/bin/env awk -f\n'), [])).toMatch(/a script more than Linux starts/);
    });
  });

  it("reads Ruby's and Perl's switches in clusters, with their values apart, and Perl's -Mlib", () => {
    for (const [launcher, args, path] of [['ruby', ['-wIlib', '/srv/s.rb'], 'lib'], ['perl', ['-wIlib', '/srv/s.pl'], 'lib'], ['perl', ['-Mlib=/srv/lib,lib', '/srv/s.pl'], 'lib'], ['ruby', ['-r', './x', '/srv/s.rb'], './x'], ['ruby', ['-e', 'puts 1', '-I', 'lib'], 'lib']] as const) {
      expect(refusedLauncher(launcher, [...args]), args.join(' ')).toMatch(new RegExp(`^${launcher} -I holds ${path.replace('.', '\\.')}, which is relative`));
    }
    expect(refusedLauncher('perl', ['-Mstrict', '-Mlib=/srv/lib', '-I/srv/lib', '/srv/s.pl'])).toBeUndefined();
    expect(refusedLauncher('java', ['-javaagent:agent.jar', '/srv/Server.java'])).toMatch(/^java -javaagent holds agent\.jar, which is relative/);
    expect(refusedLauncher('rake', ['-f', '/srv/Rakefile', 'serve'])).toMatch(/^rake imports the workspace's rakelib/);
  });

  it('finds the working folder under /proc however it is reached, a Lua path and PERL_USE_UNSAFE_INC included', () => {
    for (const [name, value] of [['PATH', '/dev/fd/../cwd/bin:/usr/bin'], ['PATH', '/./proc/self/cwd/bin'], ['PERL5OPT', '-I/dev/fd/../cwd/lib'], ['JDK_JAVA_OPTIONS', '-javaagent:/dev/fd/../cwd/a.jar'], ['PERL_USE_UNSAFE_INC', '1']] as const) {
      expect(refusedLauncher('/opt/mcp/server', [], { [name]: value }), `${name}=${value}`).toMatch(new RegExp(`^${name} holds .*the working folder`));
    }
    expect(refusedLauncher('lua5.4', ['/srv/s.lua'], { LUA_PATH: '/usr/share/lua/5.4/?.lua;/proc/self/cwd/?.lua', LUA_CPATH: '/usr/lib/?.so' })).toMatch(/^lua looks for a module in the working folder/);
    expect(refusedLauncher('/opt/mcp/server', [], { PERL_USE_UNSAFE_INC: '0', PATH: '/usr/local/bin:/usr/bin' })).toBeUndefined();
  });
});
