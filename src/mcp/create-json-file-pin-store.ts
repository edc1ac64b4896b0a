import { mkdir, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { ConfigurationError } from '../core/internal.js';
import { parseJsonOrThrow } from '../core/errors/parse-json-or-throw.js';
import { pinKey, type McpPin, type McpPinnedDefinition, type McpPinStore } from './pin-store.js';
import { withLockFile } from '../node/fs/with-lock-file.js';
import { writeFileAtomic } from '../node/fs/write-file-atomic.js';

interface PinFile {
  readonly version: 1;
  readonly pins: readonly McpPin[];
}

const DIGEST = /^[0-9a-f]{64}$/;

/**
 * Pins in a JSON file (`{ version: 1, pins: [...] }`) that several processes
 * may share: two MCP clients each spawning a gateway in one workspace, or
 * `serve` beside `toolgate call`. A write takes a lock file next to the pin
 * file (`<path>.lock`), re-reads the file, applies only this process's new
 * approvals to what is on disk and replaces the file atomically (a private
 * temp file, mode 0600, then rename). Rewriting a map read earlier would drop
 * what another process approved meanwhile, and a dropped first-use pin lets a
 * rug-pulled definition be pinned afresh on the next start.
 *
 * Every read goes to the file, so pin checks see other processes' approvals;
 * it needs no lock, since a rename replaces the file whole. A file that
 * exists but cannot be parsed or holds a malformed pin is an error, never
 * "no pins": reading it as empty would approve a rug-pulled definition on
 * first use. Within a process, approvals made while a write is under way are
 * coalesced into the next one.
 */
export function createJsonFilePinStore(path: string): McpPinStore {
  /** Approvals not yet taken by a write, by pin key. */
  const pending = new Map<string, McpPin>();
  let writing: Promise<void> = Promise.resolve();

  /** A write not yet started: every approval made meanwhile joins it, so a burst of pins costs one write. */
  let scheduled: Promise<void> | undefined;
  const flush = (): Promise<void> => {
    if (scheduled !== undefined) return scheduled;
    const run = writing.then(async () => {
      scheduled = undefined;
      const approvals = [...pending.values()];
      pending.clear();
      await mkdir(dirname(path), { recursive: true });
      await withLockFile(`${path}.lock`, async () => {
        const pins = await readPins(path);
        for (const pin of approvals) pins.set(pinKey(pin.server, pin.tool), pin);
        await writePins(path, pins);
      });
    });
    scheduled = run;
    writing = run.catch(() => undefined);
    return run;
  };

  return {
    async get(server, tool) {
      return (await readPins(path)).get(pinKey(server, tool));
    },
    async list(server) {
      return [...(await readPins(path)).values()].filter((pin) => pin.server === server);
    },
    async set(pin) {
      pending.set(pinKey(pin.server, pin.tool), Object.freeze({ ...pin }));
      // Resolves once a write that includes this pin is on disk; rejects if that write fails.
      await flush();
    },
  };
}

async function writePins(path: string, pins: ReadonlyMap<string, McpPin>): Promise<void> {
  const body: PinFile = { version: 1, pins: [...pins.values()].sort((left, right) => (pinKey(left.server, left.tool) < pinKey(right.server, right.tool) ? -1 : 1)) };
  await writeFileAtomic(path, `${JSON.stringify(body, null, 2)}\n`, { mode: 0o600, fsync: true });
}

async function readPins(path: string): Promise<Map<string, McpPin>> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw new ConfigurationError('pins', 'file cannot be read');
    return new Map();
  }
  return new Map(parsePinFile(text).map((pin) => [pinKey(pin.server, pin.tool), pin]));
}

function parsePinFile(text: string): McpPin[] {
  const parsed = parseJsonOrThrow(text, () => new ConfigurationError('pins', 'file is not valid JSON'));
  const file = parsed as Partial<PinFile> | null;
  if (typeof file !== 'object' || file === null || file.version !== 1 || !Array.isArray(file.pins)) {
    throw new ConfigurationError('pins', 'file must be { "version": 1, "pins": [...] }');
  }
  return file.pins.map((entry: unknown, index) => {
    const pin = entry as Partial<McpPin> | null;
    if (
      typeof pin !== 'object' || pin === null ||
      typeof pin.server !== 'string' || typeof pin.tool !== 'string' ||
      typeof pin.digest !== 'string' || !DIGEST.test(pin.digest) ||
      typeof pin.approvedAt !== 'string' || typeof pin.approvedBy !== 'string'
    ) {
      throw new ConfigurationError(`pins[${index}]`, 'is not a valid pin');
    }
    const base = { server: pin.server, tool: pin.tool, digest: pin.digest, approvedAt: pin.approvedAt, approvedBy: pin.approvedBy };
    // Pins written before definitions were kept have none; they stay valid.
    if (pin.definition === undefined) return Object.freeze(base);
    return Object.freeze({ ...base, definition: parseDefinition(pin.definition, index) });
  });
}

const isObject = (value: unknown): value is Readonly<Record<string, unknown>> => typeof value === 'object' && value !== null && !Array.isArray(value);

function parseDefinition(value: unknown, index: number): McpPinnedDefinition {
  const definition = value as Partial<McpPinnedDefinition> | null;
  if (
    !isObject(definition) || !isObject(definition.inputSchema) ||
    (definition.title !== undefined && typeof definition.title !== 'string') ||
    (definition.description !== undefined && typeof definition.description !== 'string') ||
    (definition.outputSchema !== undefined && !isObject(definition.outputSchema)) ||
    (definition.annotations !== undefined && !isObject(definition.annotations))
  ) {
    throw new ConfigurationError(`pins[${index}].definition`, 'must be { inputSchema: {...}, title?, description?, outputSchema?, annotations? }');
  }
  return Object.freeze({
    ...(definition.title === undefined ? {} : { title: definition.title }),
    ...(definition.description === undefined ? {} : { description: definition.description }),
    inputSchema: definition.inputSchema,
    ...(definition.outputSchema === undefined ? {} : { outputSchema: definition.outputSchema }),
    ...(definition.annotations === undefined ? {} : { annotations: definition.annotations }),
  });
}
