import { Argument, type Command } from 'commander';
import { runPolicyCheck, runPolicyExplain, runPolicyImport } from '../commands/policy-command.js';
import type { RunTask } from './run-task.js';

/** `policy explain`, `policy import` and `policy check`. */
export function addPolicyCommands(program: Command, run: RunTask): void {
  const policy = program.command('policy').description('explain, import or check the policy');
  policy
    .command('explain <tool> <json>')
    .description('why a call would be allowed, asked or denied')
    .action((tool: string, json: string) => run((output, config) => runPolicyExplain(config(), tool, json, output)));
  policy
    .command('import')
    .description('import a Claude Code settings.json (claude) or a Gemini CLI TOML policy (gemini)')
    .addArgument(new Argument('<kind>', 'what the file is').choices(['claude', 'gemini']))
    .argument('<file>')
    .action((kind: string, file: string) => run((output) => runPolicyImport(kind, file, output)));
  policy
    .command('check')
    .description('load the policy and run every rule self-test')
    .action(() => run((output, config) => runPolicyCheck(config(), output)));
}
