/**
 * The Web APIs the engine may use, declared for the engine-only typecheck
 * (`src/core/tsconfig.json`, `"types": []`). Everything here exists in every
 * modern runtime (browsers, Node, Deno, Bun, workers); anything not declared
 * here — Node's built-in modules, `process`, `Buffer` — does not compile inside `src/core`.
 * The full build typechecks the same code against the real Node/DOM shapes,
 * so these must stay a faithful subset of them.
 */

interface TextEncoderEncodeIntoResult {
  read: number;
  written: number;
}
declare class TextEncoder {
  constructor();
  readonly encoding: string;
  encode(input?: string): Uint8Array;
  encodeInto(source: string, destination: Uint8Array): TextEncoderEncodeIntoResult;
}
declare class TextDecoder {
  constructor(label?: string, options?: { fatal?: boolean; ignoreBOM?: boolean });
  decode(input?: ArrayBufferView | ArrayBuffer, options?: { stream?: boolean }): string;
}

interface EventListenerObjectLike {
  handleEvent(event: unknown): void;
}
interface AbortSignal {
  readonly aborted: boolean;
  readonly reason: unknown;
  throwIfAborted(): void;
  addEventListener(type: 'abort', listener: (this: AbortSignal, event: unknown) => void, options?: { once?: boolean; signal?: AbortSignal }): void;
  removeEventListener(type: 'abort', listener: (this: AbortSignal, event: unknown) => void): void;
}
declare var AbortSignal: {
  prototype: AbortSignal;
  abort(reason?: unknown): AbortSignal;
  timeout(milliseconds: number): AbortSignal;
  any(signals: AbortSignal[]): AbortSignal;
};
declare class AbortController {
  constructor();
  readonly signal: AbortSignal;
  abort(reason?: unknown): void;
}
declare class DOMException extends Error {
  constructor(message?: string, name?: string);
}

interface SubtleCrypto {
  digest(algorithm: 'SHA-256' | 'SHA-384' | 'SHA-512' | { name: string }, data: ArrayBufferView | ArrayBuffer): Promise<ArrayBuffer>;
}
interface Crypto {
  readonly subtle: SubtleCrypto;
  getRandomValues<T extends ArrayBufferView>(array: T): T;
  randomUUID(): string;
}
declare var crypto: Crypto;

declare function setTimeout(handler: (...args: unknown[]) => void, timeout?: number): unknown;
declare function clearTimeout(id: unknown): void;
declare function queueMicrotask(callback: () => void): void;
declare function structuredClone<T>(value: T): T;

interface Console {
  error(...data: unknown[]): void;
  warn(...data: unknown[]): void;
}
declare var console: Console;

interface URLSearchParams {
  get(name: string): string | null;
  forEach(callback: (value: string, key: string) => void): void;
  has(name: string): boolean;
  toString(): string;
}
declare class URL {
  constructor(url: string, base?: string | URL);
  hash: string;
  host: string;
  hostname: string;
  href: string;
  readonly origin: string;
  password: string;
  pathname: string;
  port: string;
  protocol: string;
  search: string;
  readonly searchParams: URLSearchParams;
  username: string;
  toString(): string;
  static canParse(url: string, base?: string): boolean;
}
