import { Argument, type Command } from 'commander';
import type { RunTask } from './run-task.js';

// Loaded when the command runs: the program starts without the policy engine and the importers' parsers.
const policyCommand = () => import('../commands/policy-command.js');

/** `policy explain`, `policy import` and `policy check`. */
export function addPolicyCommands(program: Command, run: RunTask): void {
  const policy = program.command('policy').description('explain, import or check the policy');
  policy
    .command('explain <tool> <json>')
    .description('why a call would be allowed, asked or denied')
    .action((tool: string, json: string) => run(async (output, config) => (await policyCommand()).runPolicyExplain(config(), tool, json, output)));
  policy
    .command('import')
    .description('import a Claude Code settings.json (claude) or a Gemini CLI TOML policy (gemini)')
    .addArgument(new Argument('<kind>', 'what the file is').choices(['claude', 'gemini']))
    .argument('<file>')
    .action((kind: string, file: string) => run(async (output) => (await policyCommand()).runPolicyImport(kind, file, output)));
  policy
    .command('check')
    .description('load the policy and run every rule self-test')
    .action(() => run(async (output, config) => (await policyCommand()).runPolicyCheck(config(), output)));
}
