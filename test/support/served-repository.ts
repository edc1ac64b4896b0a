import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decideIfAsked } from './pending-approval.js';
import { connectClient, makeWorkspace, serveWorkspace, type closeAfterEach } from './serve-gateway.js';

export interface ServedRepository {
  readonly workspace: string;
  /** Runs a command as the attacking agent, and gives back the result's content as JSON text (anything that would ask is rejected). */
  readonly run: (command: readonly string[]) => Promise<string>;
  /** As `run`, and whether the command raised a card (rejected) before it could run. */
  readonly attempt: (command: readonly string[]) => Promise<{ readonly text: string; readonly asked: boolean }>;
}

/**
 * A fresh repository workspace served by the gateway in `scope`, `auto` mode, with each program's commands allowed
 * (`node *`), and the attacking agent's way to run one. `prepare` shapes the repository as the user left it before
 * the gateway starts (its submodules); `readable` are the operator's `readableProtectedPaths`.
 */
export async function serveRepository(
  opened: ReturnType<typeof closeAfterEach>,
  home: string,
  scope: string,
  programs: readonly string[],
  files: Record<string, string>,
  prepare: (workspace: string) => void = () => undefined,
  readable: readonly string[] = [],
): Promise<ServedRepository> {
  const policy = { allowedCommandGlobs: programs.map((program) => `${program} *`), allow: programs.map((program) => `Bash(${program} *)`), readableProtectedPaths: readable };
  const workspace = makeWorkspace({ scope, mode: 'auto', policy }, files);
  execFileSync('git', ['init', '-q'], { cwd: workspace });
  prepare(workspace);
  const gateway = await serveWorkspace(workspace, { env: { HOME: home } });
  opened.gateway(gateway);
  const { client } = await connectClient(gateway.mcpUrl, 'attacker', undefined, gateway.auth);
  opened.client(client);
  const text = (result: object): string => JSON.stringify((result as { content?: unknown }).content);
  const attempt = async (command: readonly string[]): Promise<{ text: string; asked: boolean }> => {
    const { result, card } = await decideIfAsked(gateway, client, 'run_command', { command }, 'reject');
    return { text: text(result), asked: card !== undefined };
  };
  const run = async (command: readonly string[]): Promise<string> => (await attempt(command)).text;
  return { workspace, run, attempt };
}

/**
 * The user's own git, with nothing of toolgate's hardening: it runs the repositories' hooks and fsmonitor, and git
 * inside each submodule it lists. Its home is a folder made for the one run, which no command could have written to
 * (a `.gitconfig` a script planted in the workspace is not the user's).
 */
export function userGit(workspace: string, ...args: string[]): string {
  const home = mkdtempSync(join(tmpdir(), 'toolgate-user-home-'));
  try {
    return execFileSync('git', ['-c', 'user.name=u', '-c', 'user.email=u@example.com', ...args], { cwd: workspace, stdio: 'pipe', encoding: 'utf8', env: { PATH: process.env.PATH, HOME: home } });
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}
