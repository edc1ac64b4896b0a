import { Argument, Option, type Command } from 'commander';
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
    .addOption(new Option('--scope <scope>', "read it as the user's own file or a project's, as policy.imports[].scope does (default: where the file is)").choices(['user', 'project']))
    .action((kind: string, file: string, options: { scope?: 'user' | 'project' }) => run(async (output) => (await policyCommand()).runPolicyImport(kind, file, options.scope, output)));
  policy
    .command('check')
    .description('load the policy and run every rule self-test')
    .action(() => run(async (output, config) => (await policyCommand()).runPolicyCheck(config(), output)));
}
