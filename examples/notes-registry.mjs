// The registry the adapter examples share: one governed tool (a filesystem
// write, so it needs an approval) on a host that keeps files in memory.
// In an application the host is `createNodeHost` from `toolgate/node`.
import { z } from 'zod';
import { createToolRegistry, defineTool, requireCapability } from 'toolgate';
import { createFakeHost } from 'toolgate/testing';

export function createNotesRegistry() {
  const host = createFakeHost();
  const writeNote = defineTool({
    name: 'write_note',
    description: 'Write a note to a file in the workspace.',
    input: z.object({ path: z.string().max(200), text: z.string().max(2000) }),
    policy: { fsScoped: true, fsWrite: true },
    policyTarget: (args) => ({ path: args.path }),
    dispatch: async (args, toolHost, context) => {
      const written = await requireCapability(toolHost, 'fs', 'write_note').writeFile(args.path, args.text, {}, context.signal);
      return `wrote ${written.bytes} bytes to ${args.path}`;
    },
  });
  const registry = createToolRegistry({ tools: [writeNote], host });
  registry.on('tool-result', ({ receipt }) => console.log(`receipt: ${receipt.callId} ${receipt.status} ${receipt.code}`));
  return { registry, host };
}
