import { defineTool } from '../../tools/define-tool.js';

const object = (properties: Record<string, unknown>, required: string[]) => ({ type: 'object', properties, required, additionalProperties: false });

/** Small governed tools in the shape of the built-in catalog, for pipeline tests. */
export const runCommand = defineTool({
  name: 'run_command',
  description: 'Run a command (argv, no shell).',
  input: object({ command: { type: 'array', items: { type: 'string' } } }, ['command']),
  policy: { spawnsProcess: true },
  policyTarget: (args: { command: string[] }) => ({ command: args.command }),
  dispatch: async (args: { command: string[] }, host, context) => {
    const [program = '', ...rest] = args.command;
    const result = await host.process?.spawn(program, rest, {}, {}, context.signal);
    return result?.stdout ?? '';
  },
});

export const writeFile = defineTool({
  name: 'write_file',
  description: 'Write a file.',
  input: object({ path: { type: 'string' }, content: { type: 'string' } }, ['path', 'content']),
  policy: { fsScoped: true, fsWrite: true },
  policyTarget: (args: { path: string }) => ({ path: args.path }),
  dispatch: async (args: { path: string; content: string }, host, context) => {
    await host.fs?.writeFile(args.path, args.content, undefined, context.signal);
    return 'written';
  },
});

export const httpRequest = defineTool({
  name: 'http_request',
  description: 'Fetch a URL.',
  input: object({ url: { type: 'string' } }, ['url']),
  policy: { egress: 'http' },
  policyTarget: (args: { url: string }) => ({ url: args.url }),
  dispatch: async (args: { url: string }, host, context) => {
    const response = await host.egress?.fetch({ method: 'GET', url: args.url }, context.signal);
    return response?.status ?? 0;
  },
});

export const readFile = defineTool({
  name: 'read_file',
  description: 'Read a file.',
  input: object({ path: { type: 'string' } }, ['path']),
  policy: { fsScoped: true },
  policyTarget: (args: { path: string }) => ({ path: args.path }),
  dispatch: async (args: { path: string }, host, context) => (await host.fs?.readFile(args.path, undefined, context.signal))?.content ?? '',
});

export const governedTools = [runCommand, writeFile, httpRequest, readFile];
