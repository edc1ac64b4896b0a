import { devNull } from 'node:os';
import { describe, expect, it } from 'vitest';
import { launcherArgs, launcherEnv, refusedLauncher } from './upstream-launcher.js';

describe('launcherArgs', () => {
  it('gives npx and npm exec a prefix of the gateway\'s own, so the workspace never supplies the package', () => {
    expect(launcherArgs('npx', ['-y', '@modelcontextprotocol/server-filesystem', '.'], '/home/me/.config/toolgate')).toEqual(['--prefix=/home/me/.config/toolgate', '-y', '@modelcontextprotocol/server-filesystem', '.']);
    expect(launcherArgs('/usr/bin/npx', ['pkg'], '/n')).toEqual(['--prefix=/n', 'pkg']);
    expect(launcherArgs('C:\\node\\npx.cmd', ['pkg'], '/n')).toEqual(['--prefix=/n', 'pkg']);
    expect(launcherArgs('npm', ['exec', '--yes', 'pkg'], '/n')).toEqual(['exec', '--prefix=/n', '--yes', 'pkg']);
    expect(launcherArgs('npm', ['x', 'pkg'], '/n')).toEqual(['x', '--prefix=/n', 'pkg']);
  });

  it('gives pnpm dlx a folder of the gateway\'s own to read its configuration from, so the workspace\'s .npmrc never chooses the registry', () => {
    expect(launcherArgs('pnpm', ['dlx', '@modelcontextprotocol/server-filesystem', '.'], '/n')).toEqual(['--dir=/n', 'dlx', '@modelcontextprotocol/server-filesystem', '.']);
    expect(launcherArgs('/usr/local/bin/pnpm', ['--silent', 'dlx', 'pkg'], '/n')).toEqual(['--dir=/n', '--silent', 'dlx', 'pkg']);
    expect(launcherArgs('pnpm.cmd', ['dlx', 'pkg'], '/n')).toEqual(['--dir=/n', 'dlx', 'pkg']);
    // The operator's own folder, and pnpm's other commands (exec and run start the project's code by design).
    for (const args of [['--dir', '/mine', 'dlx', 'pkg'], ['--dir=/mine', 'dlx', 'pkg'], ['-C', '/mine', 'dlx', 'pkg'], ['exec', 'server'], ['run', 'serve']]) expect(launcherArgs('pnpm', args, '/n')).toEqual(args);
  });

  it('refuses pnpx and bunx, which toolgate cannot keep from the workspace\'s code, naming what to write instead', () => {
    expect(refusedLauncher('pnpx', ['pkg'])).toMatch(/^pnpx reads the workspace's \.npmrc.*pnpm dlx/);
    for (const [command, args] of [['bunx', ['pkg']], ['/home/me/.bun/bin/bunx', ['pkg']], ['bun', ['x', 'pkg']], ['bun', ['--bun', 'x', 'pkg']], ['bunx.exe', ['pkg']]] as const) {
      expect(refusedLauncher(command, args), command).toMatch(/^bunx runs the workspace's node_modules\/\.bin/);
    }
    for (const [command, args] of [['npx', ['pkg']], ['pnpm', ['dlx', 'pkg']], ['bun', ['run', 'server.ts']], ['node', ['x']], ['uvx', ['mcp-server-git']]] as const) expect(refusedLauncher(command, args), command).toBeUndefined();
  });

  it('gives python -P where -m or -c would read the working directory first, so a Python older than 3.11 refuses to start rather than run the workspace\'s module', () => {
    expect(launcherArgs('python3', ['-m', 'mcp_server_git'], '/n')).toEqual(['-P', '-m', 'mcp_server_git']);
    expect(launcherArgs('/usr/bin/python3.10', ['-u', '-m', 'mcp_server_git', '--repository', '.'], '/n')).toEqual(['-P', '-u', '-m', 'mcp_server_git', '--repository', '.']);
    expect(launcherArgs('python', ['-um', 'server'], '/n')).toEqual(['-P', '-um', 'server']);
    expect(launcherArgs('python.exe', ['-c', 'import server; server.main()'], '/n')).toEqual(['-P', '-c', 'import server; server.main()']);
    expect(launcherArgs('python3', ['-W', 'ignore', '-X', 'utf8', '-m', 's'], '/n')).toEqual(['-P', '-W', 'ignore', '-X', 'utf8', '-m', 's']);
    // Already kept off the path (-P, or -I, which implies it), or the operator's own word on PYTHONSAFEPATH.
    for (const args of [['-P', '-m', 's'], ['-I', '-m', 's'], ['-uP', '-m', 's'], ['-Im', 's']]) expect(launcherArgs('python3', args, '/n')).toEqual(args);
    expect(launcherArgs('python3', ['-m', 's'], '/n', { PYTHONSAFEPATH: '' })).toEqual(['-m', 's']);
    // A script: its own folder, not the working directory, goes first; what follows the script is the script's.
    for (const args of [['/srv/mcp/server.py', '-m', 'x'], ['server.py'], ['-u', '/srv/s.py', '-c', 'x'], ['-Wignore', 's.py'], ['-X', 'm', 's.py'], ['-', '-m']]) {
      expect(launcherArgs('python3', args, '/n'), args.join(' ')).toEqual(args);
    }
  });

  it('starts deno with --no-config where it runs a program, so the workspace\'s deno.json, package.json and .npmrc never choose the code', () => {
    expect(launcherArgs('deno', ['run', '-A', 'npm:@modelcontextprotocol/server-filesystem', '.'], '/n')).toEqual(['run', '--no-config', '-A', 'npm:@modelcontextprotocol/server-filesystem', '.']);
    expect(launcherArgs('/home/me/.deno/bin/deno', ['-q', 'serve', 'jsr:@me/server'], '/n')).toEqual(['-q', 'serve', '--no-config', 'jsr:@me/server']);
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

  it('starts bun with a configuration of nothing, no .env and no installs, so the workspace\'s bunfig.toml, .env and .npmrc never reach the server', () => {
    const none = [`--config=${devNull}`, '--no-env-file', '--no-install'];
    expect(launcherArgs('bun', ['run', '/srv/mcp/server.ts'], '/n')).toEqual([...none, 'run', '/srv/mcp/server.ts']);
    expect(launcherArgs('/home/me/.bun/bin/bun', ['/srv/mcp/server.ts', '--port', '1'], '/n')).toEqual([...none, '/srv/mcp/server.ts', '--port', '1']);
    // What the operator gave stays theirs, on either side of `run`; what the server is given after its path is the server's.
    expect(launcherArgs('bun', ['--config=/home/me/bunfig.toml', 'run', 's.ts'], '/n')).toEqual(['--no-env-file', '--no-install', '--config=/home/me/bunfig.toml', 'run', 's.ts']);
    expect(launcherArgs('bun', ['run', '--env-file=/home/me/.env', '-i', 's.ts'], '/n')).toEqual([`--config=${devNull}`, 'run', '--env-file=/home/me/.env', '-i', 's.ts']);
    expect(launcherArgs('bun', ['run', 's.ts', '--config=x', '--no-install'], '/n')).toEqual([...none, 'run', 's.ts', '--config=x', '--no-install']);
  });

  it('refuses yarn, deno x and uv run in the workspace, naming what to write instead', () => {
    for (const [command, args] of [['yarn', ['dlx', 'pkg']], ['yarn', ['--cwd', '/srv/mcp', 'start']], ['/usr/local/bin/yarnpkg', ['node', '/srv/s.js']], ['yarn.cmd', ['dlx', 'pkg']]] as const) {
      expect(refusedLauncher(command, args), command).toMatch(/^yarn runs the script the workspace's \.yarnrc\.yml names as its yarnPath/);
    }
    for (const [command, args] of [['deno', ['x', '-y', 'pkg']], ['deno', ['-q', 'x', 'pkg']], ['dx', ['pkg']]] as const) expect(refusedLauncher(command, args), command).toMatch(/^deno x reads the workspace's deno\.json.*deno run npm:<package>/);
    for (const args of [['run', 'server.py'], ['run', '--with', 'mcp-server-git', 'mcp-server-git'], ['--python', '3.12', 'run', 'server.py'], ['run', '--directory', '/srv/mcp', 'server.py']]) {
      expect(refusedLauncher('uv', args), args.join(' ')).toMatch(/^uv run installs the workspace's own project.*uv --directory/);
    }
    // A folder of the server's own, named ahead of run; uv tool run (uvx) reads no configuration of the folder.
    for (const args of [['--directory', '/srv/mcp/weather', 'run', 'weather.py'], ['--project=/srv/mcp', 'run', 's'], ['tool', 'run', 'mcp-server-git'], ['tool', 'run', '--from', 'x', 'run']]) {
      expect(refusedLauncher('uv', args), args.join(' ')).toBeUndefined();
    }
  });

  it('leaves a prefix the operator gave, and every other command, as configured', () => {
    expect(launcherArgs('npx', ['--prefix', '/mine', 'pkg'], '/n')).toEqual(['--prefix', '/mine', 'pkg']);
    expect(launcherArgs('npx', ['--prefix=/mine', 'pkg'], '/n')).toEqual(['--prefix=/mine', 'pkg']);
    expect(launcherArgs('npm', ['run', 'serve'], '/n')).toEqual(['run', 'serve']);
    expect(launcherArgs('node', ['server.js'], '/n')).toEqual(['server.js']);
    expect(launcherArgs('uvx', ['mcp-server-git'], '/n')).toEqual(['mcp-server-git']);
  });
});

describe('launcherEnv', () => {
  it('keeps the working directory off python -m\'s module path, and its tsconfig.json from tsx, unless the configuration says otherwise', () => {
    expect(launcherEnv(undefined)).toEqual({ PYTHONSAFEPATH: '1', TSX_TSCONFIG_PATH: devNull });
    expect(launcherEnv({ TOKEN: 'x' })).toEqual({ PYTHONSAFEPATH: '1', TSX_TSCONFIG_PATH: devNull, TOKEN: 'x' });
    expect(launcherEnv({ PYTHONSAFEPATH: '', TSX_TSCONFIG_PATH: '/srv/mcp/tsconfig.json' })).toEqual({ PYTHONSAFEPATH: '', TSX_TSCONFIG_PATH: '/srv/mcp/tsconfig.json' });
  });
});
