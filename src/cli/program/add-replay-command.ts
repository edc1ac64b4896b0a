import type { Command } from 'commander';
import type { RunTask } from './run-task.js';

/** `replay`: re-run a recorded run from the journal, with no side effect. */
export function addReplayCommand(program: Command, run: RunTask): void {
  program
    .command('replay <run>')
    .description('re-run a recorded run from the journal, with no side effect, and compare')
    .action((runId: string) => run(async (output, config) => (await import('../commands/replay-command.js')).runReplay(config(), runId, output)));
}
