import type { JsonSchema } from '../core/internal.js';

/**
 * An approved definition as the upstream sent it, without its name (the pin
 * names the tool): everything its digest covers, kept so that a reviewer of
 * a changed definition sees what was approved beside what is offered now.
 */
export interface McpPinnedDefinition {
  readonly title?: string | undefined;
  readonly description?: string | undefined;
  readonly inputSchema: JsonSchema;
  readonly outputSchema?: JsonSchema | undefined;
  readonly annotations?: Readonly<Record<string, unknown>> | undefined;
}

/** One approved definition: the digest of what a human (or first use) accepted. */
export interface McpPin {
  readonly server: string;
  /** The upstream's own tool name. */
  readonly tool: string;
  /** SHA-256 (hex) of the definition's canonical JSON. */
  readonly digest: string;
  /** ISO 8601. */
  readonly approvedAt: string;
  /** Who approved: `first-use`, or an approver's label. */
  readonly approvedBy: string;
  /**
   * The approved definition itself. Absent from pins stored before
   * definitions were kept; the digest alone still decides what is offered,
   * and a definition that does not hash to it is never shown as approved.
   */
  readonly definition?: McpPinnedDefinition;
}

/**
 * Where pins live. Reads happen at connect and on every tool-list change;
 * writes only when something is approved. An implementation must fail
 * loudly (throw) on a store it cannot read: treating it as empty would let a
 * changed definition be pinned afresh.
 */
export interface McpPinStore {
  get(server: string, tool: string): Promise<McpPin | undefined>;
  /** Every pin of `server`: a tool offered under the name another tool of it was approved under is checked against that pin. */
  list(server: string): Promise<readonly McpPin[]>;
  set(pin: McpPin): Promise<void>;
}

/** Pins for the life of the process. */
export function createMemoryPinStore(initial: readonly McpPin[] = []): McpPinStore {
  const pins = new Map<string, McpPin>(initial.map((pin) => [pinKey(pin.server, pin.tool), pin]));
  return {
    get: (server, tool) => Promise.resolve(pins.get(pinKey(server, tool))),
    list: (server) => Promise.resolve([...pins.values()].filter((pin) => pin.server === server)),
    set: (pin) => {
      pins.set(pinKey(pin.server, pin.tool), Object.freeze({ ...pin }));
      return Promise.resolve();
    },
  };
}

export function pinKey(server: string, tool: string): string {
  return JSON.stringify([server, tool]);
}
