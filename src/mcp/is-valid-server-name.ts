const SERVER_NAME = /^[a-z][a-z0-9_]{0,31}$/;

/** A server name as configured: it becomes part of tool names, so it is checked, not folded. */
export function isValidServerName(name: unknown): name is string {
  return typeof name === 'string' && SERVER_NAME.test(name) && !name.includes('__');
}
