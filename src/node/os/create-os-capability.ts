import { homedir } from 'node:os';
import type { OsCapability } from '../../core/internal.js';
import { hostFailure, hostUnavailable } from '../errors/host-denial.js';
import { findProgram } from '../process/find-program.js';
import { spawnBounded } from '../process/spawn-bounded.js';

export interface CreateOsCapabilityOptions {
  readonly systemPath: readonly string[];
  readonly workspace: string;
  /** The parent's environment, read only for the display variables a clipboard or notifier needs. */
  readonly environment?: Readonly<Record<string, string | undefined>>;
}

interface Candidate {
  readonly program: string;
  readonly args: (title: string, body: string) => string[];
  /** Only on this platform / when this variable is set. */
  readonly platform?: NodeJS.Platform;
  readonly needs?: string;
}

const CLIPBOARD: readonly Candidate[] = [
  { program: 'pbpaste', args: () => [], platform: 'darwin' },
  { program: 'wl-paste', args: () => ['--no-newline'], needs: 'WAYLAND_DISPLAY' },
  { program: 'xclip', args: () => ['-selection', 'clipboard', '-o'] },
  { program: 'xsel', args: () => ['--clipboard', '--output'] },
];

const NOTIFY: readonly Candidate[] = [
  // Title and body go in as argv items, never spliced into the script.
  { program: 'osascript', args: (title, body) => ['-e', 'on run argv', '-e', 'display notification (item 2 of argv) with title (item 1 of argv)', '-e', 'end run', title, body], platform: 'darwin' },
  { program: 'notify-send', args: (title, body) => ['--', title, body] },
];

/** Passed through so a desktop program can reach the session; nothing else from the parent. */
const DISPLAY_VARIABLES = ['DISPLAY', 'WAYLAND_DISPLAY', 'XDG_RUNTIME_DIR', 'DBUS_SESSION_BUS_ADDRESS', 'XAUTHORITY'];
const MAX_CLIPBOARD_BYTES = 1024 * 1024;

/**
 * Clipboard and notifications through the platform's programs, resolved on
 * the system PATH. When none is installed, a `ToolUnavailableError` names
 * the programs tried.
 */
export function createOsCapability(options: CreateOsCapabilityOptions): OsCapability {
  const environment = options.environment ?? process.env;
  const env: Record<string, string> = { PATH: options.systemPath.join(':'), HOME: homedir(), LANG: 'C.UTF-8' };
  for (const name of DISPLAY_VARIABLES) {
    const value = environment[name];
    if (value !== undefined) env[name] = value;
  }

  async function run(tool: string, candidates: readonly Candidate[], title: string, body: string, signal: AbortSignal | undefined): Promise<string> {
    const usable = candidates.filter((candidate) => (candidate.platform === undefined || candidate.platform === process.platform) && (candidate.needs === undefined || env[candidate.needs] !== undefined));
    for (const candidate of usable) {
      const file = findProgram(candidate.program, options.systemPath);
      if (file === undefined) continue;
      signal?.throwIfAborted();
      const result = await spawnBounded({ file, args: candidate.args(title, body), cwd: options.workspace, env, timeoutMs: 5000, maxOutputBytes: MAX_CLIPBOARD_BYTES, killGraceMs: 500, signal });
      if (result.aborted) signal?.throwIfAborted();
      if (result.exitCode !== 0) throw hostFailure(tool, `${candidate.program} exited with an error`);
      return result.stdout;
    }
    const names = usable.map((candidate) => candidate.program).join(', ');
    throw hostUnavailable(tool, 'os', `none of the programs it needs is installed (${names})`);
  }

  return {
    readClipboard: (signal) => run('read_clipboard', CLIPBOARD, '', '', signal),
    async notify(title, body, signal) {
      await run('notify', NOTIFY, title, body, signal);
    },
  };
}
