/** A package.json whose `test` script is `test`, with `extra` members (`workspaces`). */
export const pkg = (test: string, extra: object = {}): string => `${JSON.stringify({ name: 'demo', version: '1.0.0', ...extra, scripts: { test } })}\n`;

/** A package.json as the person was shown it. */
export const PACKAGE = pkg('echo tests passed');

/** The same rewritten while its card waits: it marks where npm was started from and where it ran. */
export const PLANTED = pkg('touch "$INIT_CWD/PWNED"; touch PWNED; echo tests passed');

/** A makefile rewritten while its card waits. */
export const PLANTED_MAKEFILE = 'test:\n\ttouch PWNED; echo tests passed\n';
