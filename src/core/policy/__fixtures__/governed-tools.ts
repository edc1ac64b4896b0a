import { defineTool } from '../../tools/define-tool.js';

const object = (properties: Record<string, unknown>, required: string[]) => ({ type: 'object', properties, required, additionalProperties: false });

/** Small governed tools in the shape of the built-in catalog, for pipeline tests. */
export const runCommand = defineTool({
  name: 'run_command',
  description: 'Run a command (argv, no shell).',
  input: object({ command: { type: 'array', items: { type: 'string' } } }, ['command']),
  policy: { spawnsProcess: true },
  policyTarget: (args) => ({ command: args.command as string[] }),
  dispatch: async (args, host, context) => {
    const [program = '', ...rest] = args.command as string[];
    const result = await host.process?.spawn(program, rest, {}, {}, context.signal);
    return result?.stdout ?? '';
  },
});

export const writeFile = defineTool({
  name: 'write_file',
  description: 'Write a file.',
  input: object({ path: { type: 'string' }, content: { type: 'string' } }, ['path', 'content']),
  policy: { fsScoped: true, fsWrite: true },
  policyTarget: (args) => ({ path: args.path as string }),
  dispatch: async (args, host, context) => {
    await host.fs?.writeFile(args.path as string, args.content as string, undefined, context.signal);
    return 'written';
  },
});

export const httpRequest = defineTool({
  name: 'http_request',
  description: 'Fetch a URL.',
  input: object({ url: { type: 'string' } }, ['url']),
  policy: { egress: 'http' },
  policyTarget: (args) => ({ url: args.url as string }),
  dispatch: async (args, host, context) => {
    const response = await host.egress?.fetch({ method: 'GET', url: args.url as string }, context.signal);
    return response?.status ?? 0;
  },
});

export const readFile = defineTool({
  name: 'read_file',
  description: 'Read a file.',
  input: object({ path: { type: 'string' } }, ['path']),
  policy: { fsScoped: true },
  policyTarget: (args) => ({ path: args.path as string }),
  dispatch: async (args, host, context) => (await host.fs?.readFile(args.path as string, undefined, context.signal))?.content ?? '',
});

export const governedTools = [runCommand, writeFile, httpRequest, readFile];
