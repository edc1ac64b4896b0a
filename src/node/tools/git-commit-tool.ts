import { requireCapability, ToolExecutionError } from '../../core/internal.js';
import { defineBuiltin } from './define-builtin.js';

export interface GitCommitArgs {
  readonly message: string;
  readonly paths?: readonly string[];
}

export interface GitCommitResult {
  readonly commit: string;
  readonly output: string;
}

/** Commits in the workspace repository. Needs a gate approval: chat confirmation cannot substitute. */
export const gitCommitTool = defineBuiltin<GitCommitArgs, GitCommitResult>({
  name: 'git_commit',
  description: 'Commit in the workspace git repository: stage the given paths (or commit what is already staged) with the message. Needs a human gate approval.',
  input: {
    type: 'object',
    properties: {
      message: { type: 'string', minLength: 1, maxLength: 10000, description: 'The commit message.' },
      paths: { type: 'array', items: { type: 'string', minLength: 1, maxLength: 4096 }, maxItems: 1000, description: 'Workspace-relative paths to stage and commit.' },
    },
    required: ['message'],
    additionalProperties: false,
  },
  output: {
    type: 'object',
    description: 'The new `commit` id and git\'s `output`.',
    properties: { commit: { type: 'string' }, output: { type: 'string' } },
    required: ['commit', 'output'],
  },
  facts: { destructive: false },
  policy: { fsScoped: true, fsWrite: true, requiresGate: true },
  fixedArgv: ['git', 'commit'],
  policyTarget: (args) => ({ path: '.', ...(args.paths === undefined ? {} : { paths: args.paths }) }),
  presentCall: (args) => ({ title: 'git commit', body: args.message }),
  async dispatch(args, host, context) {
    const process = requireCapability(host, 'process', context.toolName);
    const label = { tool: context.toolName };
    const git = async (gitArgs: readonly string[], stdin?: string): Promise<string> => {
      const result = await process.spawn('git', gitArgs, {}, stdin === undefined ? label : { ...label, stdin }, context.signal);
      if (result.exitCode !== 0) throw new ToolExecutionError(context.toolName, { detail: `git ${gitArgs.find((arg) => !arg.startsWith('-')) ?? ''} failed`, recoverable: true, cause: result.stderr });
      return result.stdout + result.stderr;
    };
    // Paths follow `--`, so none can be read as an option; the message goes on stdin. They are taken literally
    // (`--literal-pathspecs`): the policy, the host and the person at the gate judged each as the file it names,
    // while git reads a pathspec as a glob or magic unless told, and `.en[v]`, `.e*` or `:(icase).ENV` staged `.env`.
    if (args.paths !== undefined && args.paths.length > 0) await git(['--literal-pathspecs', 'add', '--', ...args.paths]);
    const output = await git(['--literal-pathspecs', 'commit', '--file=-', ...(args.paths === undefined || args.paths.length === 0 ? [] : ['--', ...args.paths])], args.message);
    const commit = (await git(['rev-parse', 'HEAD'])).trim();
    return { commit, output };
  },
});
