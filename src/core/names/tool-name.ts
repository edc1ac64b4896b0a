/**
 * What a toolgate tool name looks like: a lowercase letter, then up to 63
 * lowercase letters, digits or `_`. Every provider accepts it as a function
 * name, and it is the one pattern the registry, the rule compiler and the
 * name translators check against.
 */
export const TOOL_NAME_PATTERN = /^[a-z][a-z0-9_]{0,63}$/;

/** Whether a value is a well-formed toolgate tool name. */
export function isToolName(name: unknown): name is string {
  return typeof name === 'string' && TOOL_NAME_PATTERN.test(name);
}
