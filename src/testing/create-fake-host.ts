import type {
  EgressRequest,
  EgressResponse,
  FileRead,
  FileWrite,
  DirectoryEntry,
  MediaHandle,
  ProcessResult,
  SpilledResult,
  ToolHost,
  ToolHostCapability,
} from '../core/internal.js';
import { createScriptedInvoke, type ScriptedInvoke } from './scripted-invoke.js';

/** One recorded capability call. */
export interface FakeHostCall {
  readonly capability: ToolHostCapability;
  readonly method: string;
  readonly args: readonly unknown[];
  readonly at: number;
}

/** A scripted answer for one capability method: a value, a fault, and/or a delay. */
export interface FakeScript {
  readonly result?: unknown;
  /** Thrown instead of answering. */
  readonly fault?: unknown;
  /** Milliseconds to wait first; the call's signal cuts it short with an AbortError. */
  readonly delayMs?: number;
  /** Compute the answer from the arguments. */
  readonly respond?: (...args: unknown[]) => unknown;
}

export interface FakeHost extends ToolHost {
  /** Every capability call, in order. */
  readonly calls: readonly FakeHostCall[];
  /** Queue answers for `capability.method`; each call takes the next, the last one repeats. */
  script(key: `${ToolHostCapability}.${string}`, ...answers: FakeScript[]): void;
  /** Files of the in-memory filesystem, by path. */
  readonly files: Map<string, string>;
  /** Spilled outputs, by handle. */
  readonly spills: Map<string, string>;
  reset(): void;
}

export interface FakeHostOptions {
  /** Capabilities to leave out, to test `ToolUnavailableError`. */
  readonly without?: readonly ToolHostCapability[];
  readonly files?: Readonly<Record<string, string>>;
}

/**
 * A ToolHost that performs no real side effect: it records every capability
 * call and answers from scripts, an in-memory filesystem and an in-memory
 * spill store. For unit tests of tools, policies and pipelines.
 */
export function createFakeHost(options: FakeHostOptions = {}): FakeHost {
  const calls: FakeHostCall[] = [];
  const scripts = new Map<string, FakeScript[]>();
  const files = new Map<string, string>(Object.entries(options.files ?? {}));
  const spills = new Map<string, string>();
  const without = new Set(options.without ?? []);

  const invoke = createScriptedInvoke(calls, scripts);

  const host: FakeHost = {
    calls,
    files,
    spills,
    script(key, ...answers) {
      scripts.set(key, [...answers]);
    },
    reset() {
      calls.length = 0;
      scripts.clear();
      spills.clear();
    },
    fs: fakeFileSystem(invoke, files),
    process: {
      spawn: (command, args, env, spawnOptions, signal) =>
        invoke<ProcessResult>('process', 'spawn', [command, args, env, spawnOptions], signal, () => ({
          exitCode: 0,
          signal: null,
          stdout: '',
          stderr: '',
          timedOut: false,
          truncated: false,
          sandbox: 'none',
        })),
    },
    egress: {
      fetch: (request: EgressRequest, signal) =>
        invoke<EgressResponse>('egress', 'fetch', [request], signal, () => ({ status: 200, headers: {}, body: '', truncated: false, url: request.url })),
    },
    os: {
      readClipboard: (signal) => invoke<string>('os', 'readClipboard', [], signal, () => ''),
      notify: (title, body, signal) => invoke<undefined>('os', 'notify', [title, body], signal, () => undefined),
    },
    mcp: {
      call: (input, signal) => invoke<unknown>('mcp', 'call', [input], signal, () => ({ content: [] })),
    },
    outputStore: fakeOutputStore(invoke, spills),
    mediaStore: {
      put: (bytes, mediaType) =>
        invoke<MediaHandle>('mediaStore', 'put', [bytes.byteLength, mediaType], undefined, () => ({ handle: `media:fake:${bytes.byteLength}`, mediaType, bytes: bytes.byteLength })),
      get: (handle) => invoke<undefined>('mediaStore', 'get', [handle], undefined, () => undefined),
    },
  };
  for (const capability of without) delete (host as unknown as Record<string, unknown>)[capability];
  return host;
}

/** An in-memory filesystem: reads and writes `files` by path, lists the files under a folder. */
function fakeFileSystem(invoke: ScriptedInvoke, files: Map<string, string>): NonNullable<ToolHost['fs']> {
  return {
    readFile: (path, readOptions, signal) =>
      invoke<FileRead>('fs', 'readFile', [path, readOptions], signal, () => {
        const content = files.get(path);
        if (content === undefined) throw Object.assign(new Error('not found'), { code: 'ENOENT' });
        return { content, bytes: new TextEncoder().encode(content).length, partial: false };
      }),
    writeFile: (path, content, writeOptions, signal) =>
      invoke<FileWrite>('fs', 'writeFile', [path, content, writeOptions], signal, () => {
        const created = !files.has(path);
        files.set(path, content);
        return { bytes: new TextEncoder().encode(content).length, sha256: '', created };
      }),
    listDirectory: (path, listOptions, signal) =>
      invoke<readonly DirectoryEntry[]>('fs', 'listDirectory', [path, listOptions], signal, () =>
        [...files.keys()].filter((file) => path === '.' || file.startsWith(`${path}/`)).map((file) => ({ path: file, kind: 'file' as const })),
      ),
  };
}

/** An in-memory spill store: each spilled text is kept in `spills` under a new handle (its length is what is recorded). */
function fakeOutputStore(invoke: ScriptedInvoke, spills: Map<string, string>): NonNullable<ToolHost['outputStore']> {
  return {
    spill: (text, limits, signal) =>
      invoke<SpilledResult>('outputStore', 'spill', [text.length, limits], signal, () => {
        const handle = `spill:${spills.size + 1}`;
        spills.set(handle, text);
        return { handle, bytes: new TextEncoder().encode(text).length };
      }),
  };
}
