import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { closeAfterEach, makeWorkspace, serveWorkspace } from './support/serve-gateway.js';
import { runCli } from './support/spawn-cli.js';

/*
 * The operator configures an upstream the way the README does, `npx -y
 * @modelcontextprotocol/server-filesystem .`, or a Python server as `python3
 * -m mcp_server_git`, and serves a repository they cloned. A stdio upstream
 * starts in the workspace, and both launchers look there first for the code
 * they run: npx takes a package of the workspace's `node_modules` (and its
 * `.npmrc`) over the one the operator named, and `python -m` puts the working
 * directory first on the module path. The repository ships its own package
 * under that name, and `toolgate serve` ran it at start, outside any sandbox,
 * with nobody asked: the gateway's fixed PATH keeps the workspace from naming
 * the executable, and these launchers let it name the code.
 */

const opened = closeAfterEach();

/** A script that leaves `marker` in its working directory: the repository's code ran. */
const payload = (marker: string): string => `#!/usr/bin/env node\nrequire('node:fs').writeFileSync(require('node:path').join(process.cwd(), ${JSON.stringify(marker)}), 'the repository ran its code\\n');\n`;

describe("attack: a repository ships the upstream server's package", () => {
  it('npx and python -m run the package the operator named, never the copy the workspace holds', async () => {
    const workspace = makeWorkspace(
      {
        servers: {
          // Offline: npx finds a workspace's copy without the registry, and the test reaches no network.
          fs: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '.'], env: { npm_config_offline: 'true' }, connectTimeoutMs: 5_000 },
          // npm's exec behind an option and its value, and npx given a --prefix among the server's arguments (npx reads none there).
          fsexec: { command: 'npm', args: ['--loglevel', 'silent', 'exec', '-y', '@modelcontextprotocol/server-filesystem', '--', '.'], env: { npm_config_offline: 'true' }, connectTimeoutMs: 5_000 },
          fsprefix: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '.', '--prefix=/tmp'], env: { npm_config_offline: 'true' }, connectTimeoutMs: 5_000 },
          git: { command: 'python3', args: ['-m', 'mcp_server_git'], connectTimeoutMs: 5_000 },
        },
      },
      {
        'node_modules/@modelcontextprotocol/server-filesystem/package.json': JSON.stringify({ name: '@modelcontextprotocol/server-filesystem', version: '99.0.0', bin: { 'mcp-server-filesystem': 'index.js' } }),
        'node_modules/@modelcontextprotocol/server-filesystem/index.js': payload('PLANTED-NPX'),
        'mcp_server_git/__init__.py': '',
        'mcp_server_git/__main__.py': "import os\nopen(os.path.join(os.getcwd(), 'PLANTED-PYTHON'), 'w').write('the repository ran its code')\n",
      },
    );
    chmodSync(join(workspace, 'node_modules/@modelcontextprotocol/server-filesystem/index.js'), 0o755);
    mkdirSync(join(workspace, 'node_modules/.bin'));
    symlinkSync('../@modelcontextprotocol/server-filesystem/index.js', join(workspace, 'node_modules/.bin/mcp-server-filesystem'));
    writeFileSync(join(workspace, '.gitignore'), 'node_modules\n');

    const gateway = opened.gateway(await serveWorkspace(workspace, { args: ['--no-console'] }));
    expect(gateway.mcpUrl).toBeDefined();
    expect(existsSync(join(workspace, 'PLANTED-NPX'))).toBe(false);
    expect(existsSync(join(workspace, 'PLANTED-PYTHON'))).toBe(false);
  });
});

describe("attack: a repository ships a program the package npx runs looks up by name", () => {
  // npm runs the package's command with the workspace's node_modules/.bin (and those of the folders above it) ahead of
  // the system's on PATH: the package's `#!/usr/bin/env node` found the repository's `node`, which ran its own code
  // and then the server, so nothing looked amiss. Hand-tried with npm 11 and the README's server-filesystem.
  it("npx -y <package>: the package's command runs the system's node, not the workspace's node_modules/.bin/node", async () => {
    const parent = mkdtempSync(join(tmpdir(), 'toolgate-attack-npx-bin-'));
    try {
      // The operator's server, a package in a folder of its own (offline: npx installs it from there).
      const server = join(parent, 'server');
      mkdirSync(server);
      writeFileSync(join(server, 'package.json'), JSON.stringify({ name: 'probe-server', version: '1.0.0', bin: { 'probe-server': 'server.js' } }));
      writeFileSync(join(server, 'server.js'), "#!/usr/bin/env node\nrequire('node:fs').writeFileSync(require('node:path').join(process.cwd(), 'SERVER-RAN'), process.execPath);\nprocess.stdin.resume().once('end', () => process.exit(0));\n");
      chmodSync(join(server, 'server.js'), 0o755);
      const repository = join(parent, 'repository');
      mkdirSync(repository);
      const workspace = makeWorkspace({ servers: { probe: { command: 'npx', args: ['-y', server], env: { npm_config_offline: 'true' }, connectTimeoutMs: 5_000 } } }, {}, repository);
      // The repository's node, in the workspace and in a folder above it (a monorepo's root).
      const planted = `#!/bin/sh\necho ran >> "$PWD/PLANTED-NODE"\nexec ${process.execPath} "$@"\n`;
      for (const bin of [join(workspace, 'node_modules', '.bin'), join(repository, 'node_modules', '.bin')]) {
        mkdirSync(bin, { recursive: true });
        writeFileSync(join(bin, 'node'), planted);
        chmodSync(join(bin, 'node'), 0o755);
      }
      opened.gateway(await serveWorkspace(workspace, { args: ['--no-console'] }));
      await expect.poll(() => existsSync(join(workspace, 'SERVER-RAN')), { timeout: 20_000 }).toBe(true);
      expect(existsSync(join(workspace, 'PLANTED-NODE'))).toBe(false);
      expect(readFileSync(join(workspace, 'SERVER-RAN'), 'utf8')).not.toContain('node_modules');
    } finally {
      rmSync(parent, { recursive: true, force: true });
    }
  }, 40_000);
});

/** Rscript on the upstream's fixed PATH, or undefined. */
const rscript = ['/usr/bin/Rscript', '/usr/local/bin/Rscript'].find((path) => existsSync(path));

describe("attack: a repository ships R's start-up files", () => {
  // R runs the working directory's .Rprofile and reads its .Renviron (R_TESTS there names a file R runs) before the
  // server's code: Posit's mcptools starts as `Rscript -e "mcptools::mcp_server()"` (tried by hand with R 4.x).
  it.skipIf(rscript === undefined)('Rscript runs neither the workspace\'s .Rprofile nor what its .Renviron names', async () => {
    const workspace = makeWorkspace(
      { servers: { r: { command: rscript as string, args: ['-e', 'cat("server\\n"); writeLines("ran", "SERVER-RAN")'], connectTimeoutMs: 5_000 } } },
      { '.Rprofile': 'writeLines("ran", "PLANTED-RPROFILE")\n', '.Renviron': 'R_TESTS=planted-tests.R\n', 'planted-tests.R': 'writeLines("ran", "PLANTED-RTESTS")\n' },
    );
    opened.gateway(await serveWorkspace(workspace, { args: ['--no-console'] }));
    await expect.poll(() => existsSync(join(workspace, 'SERVER-RAN')), { timeout: 20_000 }).toBe(true);
    expect(existsSync(join(workspace, 'PLANTED-RPROFILE'))).toBe(false);
    expect(existsSync(join(workspace, 'PLANTED-RTESTS'))).toBe(false);
  }, 40_000);
});

/** A Python older than 3.11 on this machine (pyenv's), which reads no PYTHONSAFEPATH; undefined when there is none. */
function pythonBefore311(): string | undefined {
  const versions = join(homedir(), '.pyenv', 'versions');
  const found = existsSync(versions) ? readdirSync(versions).filter((version) => /^3\.(?:[89]|10)\.\d+$/.test(version)) : [];
  const binary = found.map((version) => join(versions, version, 'bin', 'python3')).find((path) => existsSync(path));
  return binary;
}

describe('attack: a repository ships the module a Python older than 3.11 takes from the working directory', () => {
  const python = pythonBefore311();
  // PYTHONSAFEPATH is read from 3.11 on: Python 3.10 under it ran the workspace's mcp_server_git. With -P it refuses to start.
  it.skipIf(python === undefined)('python -m on Python 3.10 refuses to start rather than run the copy the workspace holds', async () => {
    const workspace = makeWorkspace(
      { servers: { git: { command: python as string, args: ['-m', 'mcp_server_git'], connectTimeoutMs: 5_000 } } },
      { 'mcp_server_git/__init__.py': '', 'mcp_server_git/__main__.py': "import os\nopen(os.path.join(os.getcwd(), 'PLANTED-PYTHON'), 'w').write('the repository ran its code')\n" },
    );
    const gateway = opened.gateway(await serveWorkspace(workspace, { args: ['--no-console'] }));
    expect(gateway.mcpUrl).toBeDefined();
    expect(existsSync(join(workspace, 'PLANTED-PYTHON'))).toBe(false);
  });
});

describe('attack: a repository ships the code a launcher toolgate cannot hold runs in its place', () => {
  // bunx ran a workspace's `node_modules/.bin/<name>` over the package it named, and pnpx took the registry of the
  // workspace's `.npmrc` (tried by hand with bun 1.4.5 and pnpm 9: the planted script ran, and pnpx asked the
  // planted registry). Neither takes an option that keeps the workspace out and still starts the server in it.
  it.each([
    ['bunx', { command: 'bunx', args: ['@modelcontextprotocol/server-filesystem', '.'] }, /servers\.fs: bunx runs the workspace's node_modules\/\.bin/],
    ['bun x', { command: 'bun', args: ['x', '@modelcontextprotocol/server-filesystem', '.'] }, /servers\.fs: bunx runs the workspace's node_modules\/\.bin/],
    ['pnpx', { command: 'pnpx', args: ['@modelcontextprotocol/server-filesystem', '.'] }, /servers\.fs: pnpx reads the workspace's \.npmrc.*pnpm dlx/],
    // yarn runs the script a workspace's .yarnrc.yml names as its yarnPath in its own place, with `--cwd` elsewhere
    // too, and loads the plugins it lists (tried by hand with yarn 4.18: the planted script ran for `yarn dlx` and for
    // `yarn --cwd <elsewhere>`, and a planted plugin loaded under YARN_IGNORE_PATH=1).
    ['yarn dlx', { command: 'yarn', args: ['dlx', '@modelcontextprotocol/server-filesystem', '.'] }, /servers\.fs: yarn runs the script the workspace's \.yarnrc\.yml names/],
    ['yarn --cwd', { command: '/usr/local/bin/yarn', args: ['--cwd', '/srv/mcp/fs', 'start'] }, /servers\.fs: yarn runs the script the workspace's \.yarnrc\.yml names/],
    // deno x resolved the package it named through the workspace's package.json (its node_modules) and deno.json
    // (its import map), and with --no-config, which keeps them out, could not run server-filesystem (deno 2.9.6).
    ['deno x', { command: 'deno', args: ['x', '-y', '@modelcontextprotocol/server-filesystem', '.'] }, /servers\.fs: deno x reads the workspace's deno\.json.*deno run npm:/],
    ['dx', { command: 'dx', args: ['@modelcontextprotocol/server-filesystem', '.'] }, /servers\.fs: deno x reads the workspace's deno\.json/],
    // uv run makes the workspace's own project ready first (its build backend runs) and reads its uv.toml.
    ['uv run', { command: 'uv', args: ['run', '--with', 'mcp-server-git', 'mcp-server-git'] }, /servers\.fs: uv run installs the workspace's own project.*uv --directory/],
    ['uv run --directory after run', { command: 'uv', args: ['run', '--directory', '/srv/mcp/git', 'server.py'] }, /servers\.fs: uv run installs the workspace's own project/],
    // node resolved `--import tsx` from the workspace, whose node_modules/tsx ran ahead of the server (tried by hand).
    ['node --import tsx', { command: 'node', args: ['--import', 'tsx', '/srv/mcp/server.ts'] }, /servers\.fs: node loads tsx \(named in its command line\) from the workspace's node_modules/],
    ['corepack yarn', { command: 'corepack', args: ['yarn', 'dlx', '@modelcontextprotocol/server-filesystem', '.'] }, /servers\.fs: yarn runs the script the workspace's \.yarnrc\.yml names/],
    ['npx yarn', { command: 'npx', args: ['-y', 'yarn@1.22.22', 'dlx', '@modelcontextprotocol/server-filesystem', '.'] }, /servers\.fs: yarn runs the script the workspace's \.yarnrc\.yml names/],
    ['deno -L info x', { command: 'deno', args: ['-L', 'info', 'x', '@modelcontextprotocol/server-filesystem', '.'] }, /servers\.fs: deno x reads the workspace's deno\.json/],
    // A launcher started as a package reached none of the guards (npx -y deno ran the workspace's import-mapped file), and npm
    // hands npm_config_node_options to the server as NODE_OPTIONS (the workspace's node_modules/tsx ran beside the real server).
    ['npx -y deno', { command: 'npx', args: ['-y', 'deno', 'run', '-A', 'npm:@modelcontextprotocol/server-filesystem', '.'] }, /servers\.fs: npx starts deno, a launcher toolgate does not read through another/],
    ['npm_config_node_options', { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '.'], env: { npm_config_node_options: '--require tsx' } }, /servers\.fs: node loads tsx \(named in npm_config_node_options\)/],
    // A fifth attack (each tried by hand through toolgate serve, a marker left by the workspace's code): npm's other
    // spellings of --node-options, bun's BUN_OPTIONS, npx -c, env -i stripping what toolgate sets (tsx read the
    // workspace's tsconfig.json again), pipx's __pypackages__, cargo's .cargo/config.toml runner, nodemon.json's
    // events, bun run <name>, and node 24's node.config.json.
    ['npm_config_node-options', { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '.'], env: { 'npm_config_node-options': '--require tsx' } }, /servers\.fs: node loads tsx/],
    ['npx --node-opt', { command: 'npx', args: ['--node-opt=--require tsx', '-y', '@modelcontextprotocol/server-filesystem', '.'] }, /servers\.fs: node loads tsx \(named in --node-options\)/],
    ['BUN_OPTIONS', { command: 'bun', args: ['run', '/srv/mcp/server.mjs'], env: { BUN_OPTIONS: '--preload=tsx' } }, /servers\.fs: node loads tsx \(named in BUN_OPTIONS\)/],
    ['npx -c', { command: 'npx', args: ['-c', 'node --require tsx /srv/mcp/server.mjs'] }, /servers\.fs: npx -c runs a command line through a shell/],
    ['env -i', { command: 'env', args: ['-i', 'tsx', '/srv/mcp/server.mts'] }, /servers\.fs: env is given an option toolgate does not read/],
    ['pipx run', { command: 'pipx', args: ['run', 'mcp-server-git'] }, /servers\.fs: pipx runs the app of the workspace's __pypackages__/],
    ['cargo run', { command: 'cargo', args: ['run', '-q', '--manifest-path', '/srv/mcp/rs/Cargo.toml'] }, /servers\.fs: cargo reads the workspace's \.cargo\/config\.toml/],
    ['npx nodemon', { command: 'npx', args: ['-y', 'nodemon', '--quiet', '/srv/mcp/server.mjs'] }, /servers\.fs: npx starts nodemon, which reads its configuration/],
    ['bun run <name>', { command: 'bun', args: ['run', 'mcp-server-filesystem', '.'] }, /servers\.fs: bun run <name>/],
    ['node --experimental-default-config-file', { command: 'node', args: ['--experimental-default-config-file', '/srv/mcp/server.mjs'] }, /servers\.fs: node --experimental-config-file/],
    // A sixth: programs that load the workspace's .env into the server (its NODE_OPTIONS, or LD_PRELOAD for any
    // server) or run its .env.js, development runners named as the command, and a wrapper that hid deno by its path.
    ['npx dotenv-cli', { command: 'npx', args: ['-y', '-p', 'dotenv-cli', '-p', '@modelcontextprotocol/server-filesystem', 'dotenv', '--', 'mcp-server-filesystem', '.'] }, /servers\.fs: npx starts dotenv-cli, which reads its configuration or the workspace's \.env/],
    ['npx env-cmd', { command: 'npx', args: ['-y', 'env-cmd', '--', '/usr/bin/node', '/srv/mcp/server.mjs'] }, /servers\.fs: npx starts env-cmd, which reads/],
    ['nodemon as the command', { command: 'nodemon', args: ['/srv/mcp/server.mjs'] }, /servers\.fs: nodemon reads its configuration or the workspace's \.env/],
    ['npx cross-env', { command: 'npx', args: ['-y', 'cross-env', 'LOG_LEVEL=info', '/opt/deno/deno', 'run', '-A', 'npm:@modelcontextprotocol/server-filesystem', '.'] }, /servers\.fs: npx starts cross-env/],
    // A seventh: Python project runners (the workspace's .venv), Bundler (its Gemfile), mise (its .mise.toml), Maven (its
    // .mvn/jvm.config), Lua and PHP (the working folder first on their module paths), wrappers no list named, deno's --env.
    ['poetry run', { command: 'poetry', args: ['run', 'python', '/srv/mcp/server.py'] }, /servers\.fs: poetry reads the workspace's pyproject\.toml/],
    ['bundle exec', { command: 'bundle', args: ['exec', 'ruby', '/srv/mcp/server.rb'] }, /servers\.fs: bundle evaluates the workspace's Gemfile/],
    ['mise exec', { command: 'mise', args: ['exec', '--', 'node', '/srv/mcp/server.js'] }, /servers\.fs: mise picks the program by the workspace's/],
    ['mvn --file=', { command: 'mvn', args: ['-q', '--file=/srv/mcp/pom.xml', 'exec:java'] }, /servers\.fs: mvn reads the workspace's build/],
    ['lua', { command: 'lua5.4', args: ['/srv/mcp/server.lua'] }, /servers\.fs: lua looks for a module in the working folder/],
    ['php', { command: 'php', args: ['/srv/mcp/server.php'] }, /servers\.fs: php includes a file it does not find on its include_path from the working folder/],
    ['prlimit npx', { command: 'prlimit', args: ['--nofile=1024', 'npx', '-y', '@modelcontextprotocol/server-filesystem', '.'] }, /servers\.fs: prlimit starts a command line toolgate does not read/],
    ['deno --env', { command: 'deno', args: ['run', '--env', '-A', 'npm:@modelcontextprotocol/server-filesystem', '.'] }, /servers\.fs: deno --env-file names \.env/],
  ])('%s: the start is refused, naming the server and what to write instead', async (_name, server, message) => {
    const workspace = makeWorkspace(
      { servers: { fs: server } },
      {
        'node_modules/.bin/mcp-server-filesystem': payload('PLANTED-BUNX'),
        'node_modules/tsx/package.json': JSON.stringify({ name: 'tsx', version: '99.0.0', main: 'index.js' }),
        'node_modules/tsx/index.js': payload('PLANTED-BUNX'),
        '.npmrc': 'registry=http://127.0.0.1:9/\n',
        '.yarnrc.yml': 'yarnPath: ./planted-yarn.cjs\n',
        'planted-yarn.cjs': payload('PLANTED-YARN'),
        'deno.json': JSON.stringify({ imports: { 'npm:@modelcontextprotocol/server-filesystem': './planted-deno.js' } }),
        'pyproject.toml': '[project]\nname = "planted"\nversion = "0.0.0"\n',
      },
    );
    const started = await runCli(['serve', '--http', '0', '--no-console'], workspace);
    expect(started.code, started.stderr).toBe(2);
    expect(started.stderr).toMatch(message);
    expect(existsSync(join(workspace, 'PLANTED-BUNX'))).toBe(false);
    expect(existsSync(join(workspace, 'PLANTED-YARN'))).toBe(false);
  });
});
