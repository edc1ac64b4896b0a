import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { devNull, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { launcherArgs, launcherEnv, refusedLauncher } from './upstream-launcher.js';

describe('launcherArgs', () => {
  it("gives npx and npm exec a prefix of the gateway's own ahead of every argument, so the workspace never supplies the package", () => {
    expect(launcherArgs('npx', ['-y', '@modelcontextprotocol/server-filesystem', '.'], '/home/me/.config/toolgate')).toEqual(['--prefix=/home/me/.config/toolgate', '--script-shell=/home/me/.config/toolgate/npm-script-shell', '-y', '@modelcontextprotocol/server-filesystem', '.']);
    expect(launcherArgs('/usr/bin/npx', ['pkg'], '/n')).toEqual(['--prefix=/n', '--script-shell=/n/npm-script-shell', 'pkg']);
    expect(launcherArgs('C:\\node\\npx.cmd', ['pkg'], '/n')).toEqual(['--prefix=/n', '--script-shell=/n/npm-script-shell', 'pkg']);
    // npm's exec under each spelling npm takes, wherever npm's own options put it.
    for (const args of [['exec', '--yes', 'pkg'], ['x', 'pkg'], ['exe', '--yes', 'pkg'], ['--yes', 'exec', 'pkg', '--', '.'], ['--loglevel', 'silent', 'exec', '-y', 'pkg']]) {
      expect(launcherArgs('npm', args, '/n'), args.join(' ')).toEqual(['--prefix=/n', '--script-shell=/n/npm-script-shell', ...args]);
    }
    // A prefix the operator gave comes later and wins (npm takes the last); one after the package is the server's, and npx reads none there.
    expect(launcherArgs('npx', ['--prefix', '/mine', 'pkg'], '/n')).toEqual(['--prefix=/n', '--script-shell=/n/npm-script-shell', '--prefix', '/mine', 'pkg']);
    expect(launcherArgs('npx', ['-y', 'pkg', '.', '--prefix=/tmp'], '/n')).toEqual(['--prefix=/n', '--script-shell=/n/npm-script-shell', '-y', 'pkg', '.', '--prefix=/tmp']);
  });

  it("gives pnpm dlx a folder of the gateway's own to read its configuration from, wherever pnpm's options put dlx", () => {
    for (const args of [['dlx', '@modelcontextprotocol/server-filesystem', '.'], ['--silent', 'dlx', 'pkg'], ['--reporter', 'silent', 'dlx', 'pkg'], ['dlx', 'pkg', '--dir=/tmp', '.'], ['--dir', '/mine', 'dlx', 'pkg']]) {
      expect(launcherArgs('pnpm', args, '/n'), args.join(' ')).toEqual(['--dir=/n', ...args]);
    }
    expect(launcherArgs('pnpm.cmd', ['dlx', 'pkg'], '/n')).toEqual(['--dir=/n', 'dlx', 'pkg']);
    // pnpm's other commands start the project's code by design.
    for (const args of [['exec', 'server'], ['run', 'serve'], ['--filter', 'web', 'run', 'serve']]) expect(launcherArgs('pnpm', args, '/n')).toEqual(args);
  });

  it("gives python -P where -m or -c would read the working directory first, so a Python older than 3.11 refuses to start rather than run the workspace's module", () => {
    expect(launcherArgs('python3', ['-m', 'mcp_server_git'], '/n')).toEqual(['-P', '-m', 'mcp_server_git']);
    expect(launcherArgs('/usr/bin/python3.10', ['-u', '-m', 'mcp_server_git', '--repository', '.'], '/n')).toEqual(['-P', '-u', '-m', 'mcp_server_git', '--repository', '.']);
    for (const command of ['python', 'python.exe', 'python3.13t', 'python3.10-dbg', 'pypy3', 'pypy3.10']) expect(launcherArgs(command, ['-m', 's'], '/n'), command).toEqual(['-P', '-m', 's']);
    expect(launcherArgs('python', ['-um', 'server'], '/n')).toEqual(['-P', '-um', 'server']);
    expect(launcherArgs('python3', ['-c', 'import server; server.main()'], '/n')).toEqual(['-P', '-c', 'import server; server.main()']);
    for (const args of [['-W', 'ignore', '-X', 'utf8', '-m', 's'], ['-uW', 'ignore', '-m', 's'], ['-Wignore', '-m', 's'], ['--check-hash-based-pycs', 'always', '-m', 's'], ['-E', '-s', '-m', 's']]) {
      expect(launcherArgs('python3', args, '/n'), args.join(' ')).toEqual(['-P', ...args]);
    }
    // Already kept off the path (-P, or -I, which implies it), or the operator's own word on PYTHONSAFEPATH.
    for (const args of [['-P', '-m', 's'], ['-I', '-m', 's'], ['-uP', '-m', 's'], ['-Im', 's']]) expect(launcherArgs('python3', args, '/n')).toEqual(args);
    // Whatever the configuration declares: Python 3.10 reads no PYTHONSAFEPATH, and none reads it under -E.
    for (const declared of [{ PYTHONSAFEPATH: '' }, { PYTHONSAFEPATH: '1' }]) expect(launcherArgs('python3', ['-m', 's'], '/n', declared)).toEqual(['-P', '-m', 's']);
    expect(launcherArgs('python3', ['-E', '-m', 's'], '/n', { PYTHONSAFEPATH: '1' })).toEqual(['-P', '-E', '-m', 's']);
    // A script: its own folder, not the working directory, goes first; what follows the script is the script's.
    for (const args of [['/srv/mcp/server.py', '-m', 'x'], ['server.py'], ['-u', '/srv/s.py', '-c', 'x'], ['-Wignore', 's.py'], ['-X', 'm', 's.py'], ['-', '-m']]) {
      expect(launcherArgs('python3', args, '/n'), args.join(' ')).toEqual(args);
    }
  });

  it("starts deno with --no-config where it runs a program, so the workspace's deno.json, package.json and .npmrc never choose the code", () => {
    expect(launcherArgs('deno', ['run', '-A', 'npm:@modelcontextprotocol/server-filesystem', '.'], '/n')).toEqual(['run', '--no-config', '-A', 'npm:@modelcontextprotocol/server-filesystem', '.']);
    expect(launcherArgs('/home/me/.deno/bin/deno', ['-q', 'serve', 'jsr:@me/server'], '/n')).toEqual(['-q', 'serve', '--no-config', 'jsr:@me/server']);
    // -L takes the next argument as its value, which may be the name of a command of deno's.
    expect(launcherArgs('deno', ['-L', 'info', 'run', '-A', 'npm:server'], '/n')).toEqual(['-L', 'info', 'run', '--no-config', '-A', 'npm:server']);
    expect(launcherArgs('deno', ['--log-level', 'debug', 'run', 'npm:server'], '/n')).toEqual(['--log-level', 'debug', 'run', '--no-config', 'npm:server']);
    expect(launcherArgs('deno.exe', ['eval', 'import "npm:x"'], '/n')).toEqual(['eval', '--no-config', 'import "npm:x"']);
    // `deno <program>` runs it: deno takes --no-config ahead of the program there, and refuses it ahead of a command.
    expect(launcherArgs('deno', ['-A', 'npm:server'], '/n')).toEqual(['--no-config', '-A', 'npm:server']);
    expect(launcherArgs('deno', ['https://example.com/server.ts'], '/n')).toEqual(['--no-config', 'https://example.com/server.ts']);
    // An option of the server's that reads --config is the server's: deno's own options end at the program.
    expect(launcherArgs('deno', ['run', '-A', 'npm:server', '--config', 'server.json'], '/n')).toEqual(['run', '--no-config', '-A', 'npm:server', '--config', 'server.json']);
    // A configuration the operator chose, and deno's commands that run no program (a task is the project's by design).
    for (const args of [['run', '--config', 'deno.json', 'main.ts'], ['run', '-c=deno.json', 'main.ts'], ['run', '--config=deno.json', 'main.ts'], ['run', '--no-config', 'main.ts'], ['task', 'start'], ['test']]) {
      expect(launcherArgs('deno', args, '/n')).toEqual(args);
    }
  });

  it("starts bun with a configuration and a tsconfig of nothing, no .env and no installs, so the workspace's bunfig.toml, tsconfig.json, .env and .npmrc never reach the server", () => {
    const none = [`--config=${devNull}`, `--tsconfig-override=${devNull}`, '--no-env-file', '--no-install'];
    expect(launcherArgs('bun', ['run', '/srv/mcp/server.ts'], '/n')).toEqual([...none, 'run', '/srv/mcp/server.ts']);
    expect(launcherArgs('/home/me/.bun/bin/bun', ['/srv/mcp/server.ts', '--port', '1'], '/n')).toEqual([...none, '/srv/mcp/server.ts', '--port', '1']);
    // What the operator gave stays theirs, on either side of `run`; what the server is given after its path is the server's.
    expect(launcherArgs('bun', ['--config=/home/me/bunfig.toml', 'run', 's.ts'], '/n')).toEqual([`--tsconfig-override=${devNull}`, '--no-env-file', '--no-install', '--config=/home/me/bunfig.toml', 'run', 's.ts']);
    expect(launcherArgs('bun', ['run', '--env-file=/home/me/.env', '-i', '--tsconfig-override=/srv/tsconfig.json', 's.ts'], '/n')).toEqual([`--config=${devNull}`, 'run', '--env-file=/home/me/.env', '-i', '--tsconfig-override=/srv/tsconfig.json', 's.ts']);
    expect(launcherArgs('bun', ['run', 's.ts', '--config=x', '--no-install'], '/n')).toEqual([...none, 'run', 's.ts', '--config=x', '--no-install']);
  });

  it('reads a command started through env as that command, and puts env back in front', () => {
    expect(launcherArgs('/usr/bin/env', ['/root/.pyenv/versions/3.10.13/bin/python3.10', '-m', 'mcp_server_git'], '/n')).toEqual(['/root/.pyenv/versions/3.10.13/bin/python3.10', '-P', '-m', 'mcp_server_git']);
    expect(launcherArgs('env', ['-v', 'HOME=/home/me', '-C', '/srv', 'npx', '-y', 'pkg'], '/n')).toEqual(['-v', 'HOME=/home/me', '-C', '/srv', 'npx', '--prefix=/n', '--script-shell=/n/npm-script-shell', '-y', 'pkg']);
    expect(launcherArgs('env', ['--', 'deno', 'run', 'npm:x'], '/n')).toEqual(['--', 'deno', 'run', '--no-config', 'npm:x']);
    expect(launcherArgs('env', ['A=1'], '/n')).toEqual(['A=1']);
    // R (not Rscript) restores the working folder's .RData unless told not to.
    expect(launcherArgs('R', ['--no-echo', '-f', '/srv/s.R'], '/n')).toEqual(['--no-restore', '--no-echo', '-f', '/srv/s.R']);
    expect(launcherArgs('Rscript', ['/srv/s.R'], '/n')).toEqual(['/srv/s.R']);
  });

  it('reads a launcher node runs by the path of its script as that launcher', () => {
    expect(launcherArgs('node', ['/usr/lib/node_modules/npm/bin/npx-cli.js', '-y', 'pkg'], '/n')).toEqual(['/usr/lib/node_modules/npm/bin/npx-cli.js', '--prefix=/n', '--script-shell=/n/npm-script-shell', '-y', 'pkg']);
    expect(launcherArgs('node', ['--max-old-space-size=512', '/usr/lib/node_modules/npm/bin/npm-cli.js', 'exec', 'pkg'], '/n')).toEqual(['--max-old-space-size=512', '/usr/lib/node_modules/npm/bin/npm-cli.js', '--prefix=/n', '--script-shell=/n/npm-script-shell', 'exec', 'pkg']);
    expect(launcherArgs('node', ['/home/me/pnpm/bin/pnpm.cjs', 'dlx', 'pkg'], '/n')).toEqual(['/home/me/pnpm/bin/pnpm.cjs', '--dir=/n', 'dlx', 'pkg']);
    expect(launcherArgs('node', ['-e', 'x', '/srv/npx-cli.js'], '/n')).toEqual(['-e', 'x', '/srv/npx-cli.js']);
  });

  it('leaves every other command as configured', () => {
    expect(launcherArgs('npm', ['run', 'serve'], '/n')).toEqual(['run', 'serve']);
    expect(launcherArgs('node', ['server.js'], '/n')).toEqual(['server.js']);
    expect(launcherArgs('uvx', ['mcp-server-git'], '/n')).toEqual(['mcp-server-git']);
  });
});

describe('refusedLauncher', () => {
  it("refuses pnpx and bunx, which toolgate cannot keep from the workspace's code, naming what to write instead", () => {
    expect(refusedLauncher('pnpx', ['pkg'])).toMatch(/^pnpx reads the workspace's \.npmrc.*pnpm dlx/);
    for (const [command, args] of [['bunx', ['pkg']], ['/home/me/.bun/bin/bunx', ['pkg']], ['bun', ['x', 'pkg']], ['bun', ['--bun', 'x', 'pkg']], ['bunx.exe', ['pkg']]] as const) {
      expect(refusedLauncher(command, args), command).toMatch(/^bunx runs the workspace's node_modules\/\.bin/);
    }
    for (const [command, args] of [['npx', ['pkg']], ['pnpm', ['dlx', 'pkg']], ['bun', ['run', 'server.ts']], ['node', ['x']], ['uvx', ['mcp-server-git']]] as const) expect(refusedLauncher(command, args), command).toBeUndefined();
  });

  it('refuses yarn and corepack by any name or runner, deno x and uv run in the workspace, naming what to write instead', () => {
    const yarn = /^yarn runs the script the workspace's \.yarnrc\.yml names as its yarnPath/;
    for (const [command, args] of [
      ['yarn', ['dlx', 'pkg']],
      ['yarn', ['--cwd', '/srv/mcp', 'start']],
      ['/usr/local/bin/yarnpkg', ['node', '/srv/s.js']],
      ['yarn.cmd', ['dlx', 'pkg']],
      ['corepack', ['yarn', 'dlx', 'pkg']],
      ['corepack', ['pnpm', 'dlx', 'pkg']],
      ['npx', ['-y', 'yarn@1.22.22', 'dlx', 'pkg']],
      ['npm', ['exec', '@yarnpkg/cli-dist', '--', 'dlx', 'pkg']],
      ['pnpm', ['dlx', 'yarn', 'dlx', 'pkg']],
      ['deno', ['run', '-A', 'npm:yarn', 'dlx', 'pkg']],
      ['env', ['yarn', 'dlx', 'pkg']],
      ['node', ['/tmp/launchers/node_modules/@yarnpkg/cli-dist/bin/yarn.js', 'dlx', 'pkg']],
      ['node', ['/usr/lib/node_modules/corepack/dist/corepack.js', 'pnpm', 'dlx', 'pkg']],
      ['node', ['/usr/lib/node_modules/npm/bin/npx-cli.js', '-y', 'yarn', 'dlx', 'pkg']],
    ] as const) {
      expect(refusedLauncher(command, args), `${command} ${args.join(' ')}`).toMatch(yarn);
    }
    for (const [command, args] of [['deno', ['x', '-y', 'pkg']], ['deno', ['-q', 'x', 'pkg']], ['deno', ['-L', 'info', 'x', 'pkg']], ['dx', ['pkg']]] as const) {
      expect(refusedLauncher(command, args), args.join(' ')).toMatch(/^deno x reads the workspace's deno\.json.*deno run npm:<package>/);
    }
    for (const args of [['run', 'server.py'], ['run', '--with', 'mcp-server-git', 'mcp-server-git'], ['--python', '3.12', 'run', 'server.py'], ['run', '--directory', '/srv/mcp', 'server.py']]) {
      expect(refusedLauncher('uv', args), args.join(' ')).toMatch(/^uv run installs the workspace's own project.*uv --directory/);
    }
    // A folder of the server's own, named ahead of run; uv tool run (uvx) reads no configuration of the folder.
    for (const args of [['--directory', '/srv/mcp/weather', 'run', 'weather.py'], ['--project=/srv/mcp', 'run', 's'], ['tool', 'run', 'mcp-server-git'], ['tool', 'run', '--from', 'x', 'run']]) {
      expect(refusedLauncher('uv', args), args.join(' ')).toBeUndefined();
    }
  });

  it('refuses node loading a module by a bare name before the program, on its command line or in a declared NODE_OPTIONS', () => {
    const preload = /^node loads \S+ \(named in (?:its command line|NODE_OPTIONS)\) from the workspace's node_modules/;
    for (const args of [['--import', 'tsx', '/srv/s.ts'], ['--import=tsx/esm', '/srv/s.ts'], ['-r', 'dotenv/config', '/srv/s.js'], ['--require=@babel/register', 's.js'], ['--loader', 'ts-node/esm', 's.ts'], ['--experimental-loader=tsx', 's.ts']]) {
      expect(refusedLauncher('node', args), args.join(' ')).toMatch(preload);
    }
    expect(refusedLauncher('node', ['/srv/s.ts'], { NODE_OPTIONS: '--max-old-space-size=512 --import tsx' })).toMatch(preload);
    expect(refusedLauncher('env', ['node', '-r', 'dotenv/config', '/srv/s.js'])).toMatch(preload);
    // A module named by its path or URL, a builtin, or none.
    for (const args of [['--import', '/usr/lib/node_modules/tsx/dist/esm/index.mjs', '/srv/s.ts'], ['--import', './register.js', 's.js'], ['-r', 'node:util', 's.js'], ['--import=file:///srv/r.mjs', 's.js'], ['--import', 'data:text/javascript,', 's.js'], ['/srv/s.js', '--port', '3']]) {
      expect(refusedLauncher('node', args), args.join(' ')).toBeUndefined();
    }
    expect(refusedLauncher('node', ['/srv/s.ts'], { NODE_OPTIONS: '--import "/usr/lib/node_modules/tsx/dist/esm/index.mjs"' })).toBeUndefined();
    // node reads `_` in an option's name as `-`; every launcher of npm's is node, and reads NODE_OPTIONS; env's settings join the environment.
    expect(refusedLauncher('node', ['--experimental_loader', 'evil', '/srv/s.js'])).toMatch(preload);
    expect(refusedLauncher('npx', ['-y', 'pkg'], { NODE_OPTIONS: '-r evil' })).toMatch(preload);
    expect(refusedLauncher('env', ['NODE_OPTIONS=-r evil', 'node', '/srv/s.js'])).toMatch(preload);
    // A preload ahead of a launcher script node runs is node's own.
    expect(refusedLauncher('node', ['-r', 'evil', '/usr/lib/node_modules/npm/bin/npx-cli.js', '-y', 'pkg'])).toMatch(preload);
  });

  it('knows a launcher by the file it is, not by how it was named', () => {
    // Names in any case, with a Windows extension; Debian's nodejs; npm's scripts run by path, or through a link to them.
    expect(launcherArgs('C:\\node\\NPX.CMD', ['pkg'], '/n')).toEqual(['--prefix=/n', '--script-shell=/n/npm-script-shell', 'pkg']);
    expect(launcherArgs('/usr/lib/node_modules/npm/bin/npx-cli.js', ['-y', 'pkg'], '/n')).toEqual(['--prefix=/n', '--script-shell=/n/npm-script-shell', '-y', 'pkg']);
    expect(refusedLauncher('nodejs', ['--import', 'tsx', '/srv/s.ts'])).toMatch(/^node loads tsx/);
    expect(refusedLauncher('/srv/bin/yarn.js', ['dlx', 'pkg'])).toMatch(/^yarn runs/);
    expect(refusedLauncher('node', ['/srv/yarn-4.18.0.cjs', 'dlx', 'pkg'])).toMatch(/^yarn runs/);
    // An option of node's this reader does not know takes a value: the launcher script after it is still found.
    expect(refusedLauncher('node', ['--disable-warning', 'ExperimentalWarning', '/srv/yarn.js', 'dlx', 'pkg'])).toMatch(/^yarn runs/);
    expect(launcherArgs('node', ['--disable-warning', 'ExperimentalWarning', '/usr/lib/node_modules/npm/bin/npx-cli.js', 'pkg'], '/n')).toEqual(['--disable-warning', 'ExperimentalWarning', '/usr/lib/node_modules/npm/bin/npx-cli.js', '--prefix=/n', '--script-shell=/n/npm-script-shell', 'pkg']);
    // After `--` node runs the next argument; npm's index.js and yarn classic's lib/cli.js start npm and yarn.
    expect(launcherArgs('node', ['--', '/usr/lib/node_modules/npm/bin/npx-cli.js', '-y', 'pkg'], '/n')).toEqual(['--', '/usr/lib/node_modules/npm/bin/npx-cli.js', '--prefix=/n', '--script-shell=/n/npm-script-shell', '-y', 'pkg']);
    expect(launcherArgs('node', ['/usr/lib/node_modules/npm/index.js', 'exec', 'pkg'], '/n')).toEqual(['/usr/lib/node_modules/npm/index.js', '--prefix=/n', '--script-shell=/n/npm-script-shell', 'exec', 'pkg']);
    expect(refusedLauncher('node', ['/home/me/.npm/_npx/1/node_modules/yarn/lib/cli.js', 'dlx', 'pkg'])).toMatch(/^yarn runs/);
  });

  it('follows a link to the file it names: a link named anything to npx-cli.js is npx, and one to node is node', () => {
    const folder = mkdtempSync(join(tmpdir(), 'toolgate-launcher-'));
    try {
      writeFileSync(join(folder, 'npx-cli.js'), '');
      writeFileSync(join(folder, 'node'), '');
      symlinkSync(join(folder, 'npx-cli.js'), join(folder, 'NPX'));
      symlinkSync(join(folder, 'node'), join(folder, 'runtime'));
      expect(launcherArgs(join(folder, 'NPX'), ['-y', 'pkg'], '/n')).toEqual(['--prefix=/n', '--script-shell=/n/npm-script-shell', '-y', 'pkg']);
      expect(launcherArgs('node', [join(folder, 'NPX'), '-y', 'pkg'], '/n')).toEqual([join(folder, 'NPX'), '--prefix=/n', '--script-shell=/n/npm-script-shell', '-y', 'pkg']);
      expect(refusedLauncher(join(folder, 'runtime'), ['--import', 'tsx', '/srv/s.ts'])).toMatch(/^node loads tsx/);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it('refuses a package runner that starts a launcher, which none of the guards would reach', () => {
    for (const [command, args] of [
      ['npx', ['-y', 'deno', 'run', '-A', 'npm:pkg', '.']],
      ['npx', ['-y', 'npm@10', 'exec', '--', 'pkg', '.']],
      ['pnpm', ['dlx', 'npm@10', 'exec', '--', 'pkg']],
      ['npx', ['-y', 'pnpm@9', 'dlx', 'pkg']],
      ['npx', ['-y', 'bun', 'x', 'pkg']],
      ['npx', ['-y', 'node@20', '/srv/s.mjs']],
      ['npx', ['--package=npm@10', 'npm', 'exec', 'pkg']],
      ['deno', ['run', '-A', 'npm:npm@10', 'exec', 'pkg']],
    ] as const) {
      expect(refusedLauncher(command, args), `${command} ${args.join(' ')}`).toMatch(/starts \S+, a launcher toolgate does not read through another \(an argument of the server's that reads as a launcher's name counts too\): name it as the command$/);
    }
    expect(refusedLauncher('npx', ['-y', 'yarn-berry', 'dlx', 'pkg'])).toMatch(/^yarn runs/);
    // tsx through npx is how a TypeScript server is started: its tsconfig is kept out by TSX_TSCONFIG_PATH.
    expect(refusedLauncher('npx', ['-y', 'tsx', '/srv/s.ts'])).toBeUndefined();
  });

  it("refuses a bare preload handed to the server through npm's --node-options or npm_config_node_options", () => {
    expect(refusedLauncher('npx', ['-y', '--node-options=--import=tsx', 'pkg'])).toMatch(/^node loads tsx \(named in --node-options\)/);
    expect(refusedLauncher('npm', ['exec', '--node-options', '-r dotenv/config', 'pkg'])).toMatch(/^node loads dotenv\/config/);
    expect(refusedLauncher('npx', ['-y', 'pkg'], { npm_config_node_options: '--require tsx' })).toMatch(/^node loads tsx \(named in npm_config_node_options\)/);
    // npm reads the name with a dash too, and expands an abbreviation of the option; bun reads BUN_OPTIONS as its command line.
    expect(refusedLauncher('npx', ['-y', 'pkg'], { 'npm_config_node-options': '--require tsx' })).toMatch(/^node loads tsx/);
    for (const option of ['--node-opt=--require tsx', '--node-o=--require tsx', '--node_options=--require tsx']) expect(refusedLauncher('npx', [option, '-y', 'pkg']), option).toMatch(/^node loads tsx/);
    expect(refusedLauncher('bun', ['run', '/srv/s.mjs'], { BUN_OPTIONS: '--preload=tsx' })).toMatch(/^node loads tsx \(named in BUN_OPTIONS\)/);
  });

  it('refuses what runs a command line or a name the workspace answers, and launchers it cannot hold', () => {
    expect(refusedLauncher('npx', ['-c', 'node --require tsx /srv/s.mjs'])).toMatch(/^npx -c runs a command line through a shell/);
    expect(refusedLauncher('npm', ['exec', '--call=mcp-server', 'x'])).toMatch(/^npm -c runs a command line/);
    expect(refusedLauncher('npx', ['-y', 'some-server', '--', '-c', '/srv/config.json'])).toBeUndefined();
    for (const args of [['run', 'mcp-server-filesystem', '.'], ['mcp-server-filesystem', '.'], ['--hot', 'run', 'start']]) expect(refusedLauncher('bun', args), args.join(' ')).toMatch(/^bun run <name>/);
    for (const args of [['run', '/srv/s.mjs'], ['/srv/s.ts'], ['run', 'server.ts'], ['index.js']]) expect(refusedLauncher('bun', args), args.join(' ')).toBeUndefined();
    expect(refusedLauncher('pipx', ['run', 'mcp-server-git'])).toMatch(/^pipx runs the app of the workspace's __pypackages__/);
    for (const command of ['cargo', '/root/.cargo/bin/cargo', 'rustup']) expect(refusedLauncher(command, ['run', '--manifest-path', '/srv/Cargo.toml']), command).toMatch(/reads the workspace's \.cargo\/config\.toml and rust-toolchain\.toml/);
    const readsTheWorkspace = /reads its configuration or the workspace's \.env from the folder it starts in/;
    for (const runner of ['nodemon', 'vite-node', 'ts-node', 'ts-node@10', 'tsm', 'esbuild-runner', 'env-cmd', 'dotenv-cli', '@dotenvx/dotenvx', 'cross-env', '--package=dotenv-cli']) {
      expect(refusedLauncher('npx', ['-y', runner, '--', '/usr/bin/node', '/srv/s.mjs']), runner).toMatch(readsTheWorkspace);
    }
    // Named as the command, installed already, it reads the workspace all the same.
    for (const command of ['nodemon', '/usr/local/bin/nodemon', '/opt/tools/node_modules/.bin/dotenv', 'env-cmd']) expect(refusedLauncher(command, ['/srv/s.mjs']), command).toMatch(readsTheWorkspace);
    // A seventh attack: runtimes and tools that read the working folder first, and launchers behind wrappers no list named.
    for (const [command, args] of [['poetry', ['run', 'python', '/srv/s.py']], ['pipenv', ['run', 'python']], ['pdm', ['run']], ['bundle', ['exec', 'ruby', '/srv/s.rb']], ['mise', ['exec', '--', 'node', '/srv/s.js']], ['mvn', ['--file=/srv/pom.xml', 'exec:java']], ['mix', ['run']]] as const) {
      expect(refusedLauncher(command, [...args]), command).toMatch(/reads the workspace's|evaluates the workspace's Gemfile|picks the program by the workspace's/);
    }
    expect(refusedLauncher('lua5.4', ['/srv/s.lua'])).toMatch(/^lua looks for a module in the working folder/);
    expect(refusedLauncher('lua5.4', ['/srv/s.lua'], { LUA_PATH: '/usr/share/lua/5.4/?.lua', LUA_CPATH: '/usr/lib/x86_64-linux-gnu/lua/5.4/?.so' })).toBeUndefined();
    expect(refusedLauncher('lua', ['/srv/s.lua'], { LUA_PATH: '/usr/share/lua/5.4/?.lua;;', LUA_CPATH: '/x/?.so' })).toMatch(/^lua looks/);
    expect(refusedLauncher('php', ['/srv/s.php'])).toMatch(/^php includes a file it does not find on its include_path from the working folder/);
    // An eighth attack: PHP falls back to the working folder whatever include_path says; Lua reads its version's form first.
    expect(refusedLauncher('php', ['-d', 'include_path=/usr/share/php', '/srv/s.php'])).toMatch(/^php includes a file it does not find/);
    expect(refusedLauncher('lua5.4', ['/srv/s.lua'], { LUA_PATH: '/a/?.lua', LUA_CPATH: '/a/?.so', LUA_PATH_5_4: '/a/?.lua;;' })).toMatch(/^lua looks/);
    expect(refusedLauncher('lua5.4', ['/srv/s.lua'], { LUA_PATH_5_4: '/a/?.lua', LUA_CPATH_5_4: '/a/?.so' })).toMatch(/^lua looks/);
    expect(refusedLauncher('java', ['-cp', '/srv/classes:', 'Server'])).toMatch(/^java -cp holds an empty entry, which is the working folder/);
    expect(refusedLauncher('java', ['--class-path=classes', 'Server'])).toMatch(/^java -cp holds classes, which is relative to the working folder/);
    // The working folder by another name: /proc/self/cwd, or a way into /proc through a link.
    expect(refusedLauncher('java', ['-cp', '/usr/share/java:/proc/self/cwd', 'Server'])).toMatch(/^java -cp holds \/proc\/self\/cwd, which is the working folder by another name/);
    expect(refusedLauncher('java', ['-classpath', '/dev/fd/../cwd/lib.jar', 'Server'])).toMatch(/^java -cp holds \/dev\/fd\/\.\.\/cwd\/lib\.jar, which is the working folder by another name/);
    // A declared CLASSPATH is a search path like PATH (`searchPathRefusal`), for any command.
    expect(refusedLauncher('java', ['/srv/Server.java'], { CLASSPATH: ':/srv/classes' })).toMatch(/^CLASSPATH holds an empty entry, which is the working folder/);
    expect(refusedLauncher('java', ['-cp', '/srv/classes:/srv/lib/x.jar', 'Server'])).toBeUndefined();
    expect(refusedLauncher('env', ['ERL_AFLAGS=+S 2', 'escript', '/srv/s.escript'])).toMatch(/^env sets ERL_AFLAGS, which toolgate sets/);
    for (const args of [['-m', 'pipenv', 'run', 'python'], ['/usr/bin/poetry', 'run', 'python']]) expect(refusedLauncher('python3', args), args.join(' ')).toMatch(/reads the workspace's pyproject\.toml/);
    expect(refusedLauncher('ruby', ['-S', 'bundle', 'exec', 'ruby', '/srv/s.rb'])).toMatch(/evaluates the workspace's Gemfile/);
    expect(refusedLauncher('elixir', ['--erl', '+S 2', '-pa', '/usr/lib/elixir/lib/mix/ebin', '-S', 'mix', 'run', '--no-halt'])).toMatch(/^mix reads the workspace's build/);
    expect(refusedLauncher('ruby', ['-rbundler/setup', '/srv/s.rb'])).toMatch(/^ruby -rbundler\/setup evaluates/);
    expect(refusedLauncher('ruby', ['/srv/s.rb'], { RUBYOPT: '-rbundler/setup' })).toMatch(/^ruby -rbundler\/setup evaluates/);
    expect(refusedLauncher('ruby', ['-rbundler/setup', '/srv/s.rb'], { BUNDLE_GEMFILE: '/srv/Gemfile' })).toBeUndefined();
    expect(refusedLauncher('R', ['CMD', 'BATCH', '/srv/s.R'])).toMatch(/^R CMD restores the workspace's \.RData/);
    for (const [command, args] of [['prlimit', ['--nofile=1024', 'npx', '-y', 'pkg']], ['flock', ['/tmp/lock', 'npx', 'pkg']], ['/usr/local/bin/my-wrapper', ['npx', 'pkg']]] as const) {
      expect(refusedLauncher(command, [...args]), command).toMatch(/npx|starts a command line toolgate does not read/);
    }
    expect(refusedLauncher('/opt/mcp/server', ['watch', '--root', '/srv'])).toBeUndefined();
    expect(refusedLauncher('deno', ['run', '--env', '-A', 'npm:pkg'])).toMatch(/^deno --env-file names \.env/);
    for (const option of ['--experimental-default-config-file', '--experimental-config-file=node.config.json', '--experimental_config_file', '--experimental-config-file']) {
      expect(refusedLauncher('node', [option, '/srv/s.mjs']), option).toMatch(/^node --experimental-config-file and --experimental-default-config-file read node's options from a file/);
    }
  });

  it("refuses node's --env-file of the workspace, and one of the operator's whose NODE_OPTIONS loads a module by a bare name", () => {
    const folder = mkdtempSync(join(tmpdir(), 'toolgate-env-file-'));
    try {
      writeFileSync(join(folder, 'apm.env'), 'SERVICE=x\nexport NODE_OPTIONS="-r dd-trace/init"\n');
      writeFileSync(join(folder, 'plain.env'), 'NODE_OPTIONS=--max-old-space-size=512\nTOKEN=y\n');
      // node drops a trailing comment after a quoted value, and reads backticks as quotes.
      writeFileSync(join(folder, 'quoted.env'), "NODE_OPTIONS='--require tsx' # dev preload\n");
      writeFileSync(join(folder, 'backticks.env'), 'NODE_OPTIONS=`--require tsx`\n');
      for (const file of ['quoted.env', 'backticks.env']) expect(refusedLauncher('node', [`--env-file=${join(folder, file)}`, '/srv/s.js']), file).toMatch(/^node loads tsx/);
      expect(refusedLauncher('node', ['--env-file=.env', '/srv/s.js'])).toMatch(/^node --env-file names \.env, a file of the workspace/);
      expect(refusedLauncher('node', ['--env-file-if-exists', 'config/.env', '/srv/s.js'])).toMatch(/^node --env-file names config\/\.env/);
      expect(refusedLauncher('node', [`--env-file=${join(folder, 'apm.env')}`, '/srv/s.js'])).toMatch(/^node loads dd-trace\/init \(named in .*apm\.env\)/);
      expect(refusedLauncher('node', [`--env-file=${join(folder, 'plain.env')}`, '/srv/s.js'])).toBeUndefined();
      expect(refusedLauncher('node', [`--env-file=${join(folder, 'missing.env')}`, '/srv/s.js'])).toBeUndefined();
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it("judges tsx, bun and deno as node is judged: a bare preload, an env file of the workspace, and deno's folders of the workspace", () => {
    expect(refusedLauncher('tsx', ['--env-file=.env', '/srv/s.mjs'])).toMatch(/^tsx --env-file names \.env, a file of the workspace/);
    expect(refusedLauncher('npx', ['-y', 'tsx', '--env-file=.env', '/srv/s.mjs'])).toMatch(/^npx --env-file names \.env/);
    expect(refusedLauncher('tsx', ['--import', 'evil', '/srv/s.mjs'])).toMatch(/^node loads evil/);
    expect(refusedLauncher('bun', ['--preload', 'evil', '/srv/s.mjs'])).toMatch(/^node loads evil/);
    expect(refusedLauncher('bun', ['--env-file=.env', '/srv/s.mjs'])).toMatch(/^bun --env-file names \.env/);
    expect(refusedLauncher('deno', ['run', '-A', '--env-file', 'npm:pkg', '.'])).toMatch(/^deno --env-file names \.env/);
    expect(refusedLauncher('deno', ['run', '--env-file', '-A', 'npm:pkg'])).toMatch(/^deno --env-file names \.env/);
    expect(refusedLauncher('deno', ['run', '-A', '--env-file=.env', 'npm:pkg'])).toMatch(/^deno --env-file names \.env/);
    for (const option of ['--node-modules-dir=manual', '--node-modules-dir=auto', '--node-modules-dir', '--vendor']) {
      expect(refusedLauncher('deno', ['run', '-A', option, 'npm:pkg', '.']), option).toMatch(/^deno --node-modules-dir and --vendor take the packages of the server from the workspace/);
    }
    for (const args of [['run', '-A', '--node-modules-dir=none', 'npm:pkg'], ['run', '-A', '--env-file=/home/me/deno.env', 'npm:pkg']]) expect(refusedLauncher('deno', args), args.join(' ')).toBeUndefined();
    expect(refusedLauncher('npx', ['-y', 'tsx', '/srv/s.ts'])).toBeUndefined();
  });

  it('refuses a shell or other wrapper, whose command toolgate does not read', () => {
    for (const [command, args] of [['nice', ['npx', 'pkg']], ['timeout', ['10', 'npx', 'pkg']], ['/bin/bash', ['-c', 'npx -y pkg']], ['sh', ['-c', 'npx pkg']], ['sudo', ['npx', 'pkg']], ['env', ['nice', 'npx', 'pkg']]] as const) {
      expect(refusedLauncher(command, args), command).toMatch(/starts a command line toolgate does not read: name the command it starts directly$/);
    }
  });

  it('refuses env given an option toolgate does not read, and judges what env starts', () => {
    for (const args of [['-S', 'npx -y pkg'], ['-iS', 'x'], ['--split=npx -y pkg', '.'], ['-vu', 'FOO', 'npx', 'pkg'], ['--uns', 'FOO', 'npx', 'pkg']]) {
      expect(refusedLauncher('/usr/bin/env', args), args.join(' ')).toMatch(/^env is given an option toolgate does not read/);
    }
    expect(refusedLauncher('env', ['bunx', 'pkg'])).toMatch(/^bunx runs/);
    expect(refusedLauncher('env', ['-C', '/srv', 'A=1', 'npx', 'pkg'])).toBeUndefined();
    expect(refusedLauncher('env', [])).toBeUndefined();
  });
});

describe('launcherEnv', () => {
  it("keeps the working directory off python -m's module path, its tsconfig.json from tsx, its package.json from corepack, its .Rprofile and .Renviron from R, java's class path and Erlang's code path, unless the configuration says otherwise", () => {
    const nulled = { TSX_TSCONFIG_PATH: devNull, R_ENVIRON_USER: devNull, R_PROFILE_USER: devNull, CLASSPATH: devNull, BUNDLE_GEMFILE: devNull };
    const kept = { ...nulled, PYTHONSAFEPATH: '1', COREPACK_ENABLE_PROJECT_SPEC: '0', COREPACK_ENV_FILE: '0', ERL_AFLAGS: '-eval code:del_path([46])' };
    expect(launcherEnv(undefined)).toEqual(kept);
    expect(launcherEnv({ TOKEN: 'x' })).toEqual({ ...kept, TOKEN: 'x' });
    expect(launcherEnv({ PYTHONSAFEPATH: '', TSX_TSCONFIG_PATH: '/srv/mcp/tsconfig.json' })).toEqual({ ...kept, PYTHONSAFEPATH: '', TSX_TSCONFIG_PATH: '/srv/mcp/tsconfig.json' });
    // The operator's Erlang flags stay, and the working folder still comes off the code path after them.
    expect(launcherEnv({ ERL_AFLAGS: '+S 2' }).ERL_AFLAGS).toBe('+S 2 -eval code:del_path([46])');
  });
});
