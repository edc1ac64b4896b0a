import type { CliOutput } from '../cli-output.js';
import type { ResolvedConfig } from '../config/config-types.js';

/** One command's work: it prints through `output`, loads the configuration only if it needs it, and may return an exit code. */
export type CliTask = (output: CliOutput, config: () => ResolvedConfig) => Promise<number | void>;

/** Runs a command's task with the global options applied (output format, configuration file). */
export type RunTask = (task: CliTask) => Promise<void>;
