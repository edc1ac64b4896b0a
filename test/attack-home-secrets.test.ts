import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { closeAfterEach, connectClient, serveGateway } from './support/serve-gateway.js';

// A hostile model in the `workspace-write` tier, with `cat` and `grep` allowed by glob in `auto`, against the
// home the gateway runs in: where people keep the keys their tools read, beside the stores the sandbox already
// masks (`.ssh`, `.aws`, `.netrc`, …). The shell's startup files (`export OPENAI_API_KEY=…`, as the vendors' own
// set-up guides say), its histories (a `curl -H "Authorization: …"`, an `export` typed once) and the token files of
// Hugging Face, Kaggle, RubyGems, Composer, Databricks and fish's universal variables were read whole by a
// `grep -r` of the home, and, but the startup files, by a plain `cat`, with nobody asked.

const MARK = 'HOME-SECRET-0123456789';
const open = closeAfterEach();
const text = (result: object): string => JSON.stringify((result as { content?: unknown }).content);

const FILES = [
  '.bashrc',
  '.bash_profile',
  '.profile',
  '.zshrc',
  '.zshenv',
  '.bash_history',
  '.zsh_history',
  '.python_history',
  '.psql_history',
  '.mysql_history',
  '.node_repl_history',
  '.local/share/fish/fish_history',
  '.config/fish/fish_variables',
  '.cache/huggingface/token',
  '.huggingface/token',
  '.kaggle/kaggle.json',
  '.gem/credentials',
  '.config/composer/auth.json',
  '.databrickscfg',
];

describe.runIf(process.platform === 'linux')("attack: the keys kept in the gateway's home, read by an allowed command", () => {
  it('a glob-allowed cat or grep -r of the home reads none of them in the sandbox', async () => {
    // Not under /tmp, which the sandbox replaces with its own: homes are elsewhere (`/home`, `/root`, `/var/lib`).
    const home = mkdtempSync(join(existsSync('/var/tmp') ? '/var/tmp' : tmpdir(), 'toolgate-home-secrets-'));
    for (const file of FILES) {
      mkdirSync(dirname(join(home, file)), { recursive: true });
      writeFileSync(join(home, file), `export OPENAI_API_KEY=${MARK}\n`);
    }
    const gateway = open.gateway(
      await serveGateway(
        { scope: 'workspace-write', mode: 'auto', console: { enabled: false }, policy: { allowedCommandGlobs: ['cat *', 'grep *'], allow: ['Bash(cat *)', 'Bash(grep *)'] } },
        { env: { HOME: home } },
      ),
    );
    const { client } = await connectClient(gateway.mcpUrl, 'attacker', undefined, gateway.auth);
    open.client(client);
    const leaks: string[] = [];
    for (const file of FILES) {
      const answer = text(await client.callTool({ name: 'run_command', arguments: { command: ['cat', join(home, file)] } }));
      if (answer.includes(MARK)) leaks.push(`cat ~/${file}`);
    }
    const grep = await client.callTool({ name: 'run_command', arguments: { command: ['grep', '-r', MARK, home] } });
    expect(grep.isError, text(grep)).not.toBe(true);
    // A masked file is named in grep's complaints; only its line, key and all, is a leak.
    for (const file of FILES) if (text(grep).includes(`${file}:export`)) leaks.push(`grep -r: ~/${file}`);
    rmSync(home, { recursive: true, force: true });
    expect(leaks).toEqual([]);
  }, 90_000);
});
