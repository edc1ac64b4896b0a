/**
 * Set an own enumerable property. Schemas may come from untrusted sources
 * (MCP upstreams), where a property may be named `__proto__`: plain
 * assignment would replace the copy's prototype instead of copying it.
 */
export function defineOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}
