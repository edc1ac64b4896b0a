import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { closeAfterEach, connectClient, serveGateway } from './support/serve-gateway.js';

// A hostile model against the gateway's disk: every result past the model-facing bound is spilled whole to
// `.toolgate/spill/runs/<run>/`, and nothing removed those files while the gateway ran (and retention is off by
// default). Reads are not governed in the embedded default (read-only, `ask`), so a model with no approval at all
// filled the disk at the speed it could call `read_file` on one large file: 24 reads of a 4 MB log left 96 MB.

const open = closeAfterEach();
const MIB = 1024 * 1024;

/** Every spill file under the gateway's store, named from the runs folder, with its size. */
function spills(workspace: string): { name: string; bytes: number }[] {
  const runs = join(workspace, '.toolgate', 'spill', 'runs');
  return readdirSync(runs, { recursive: true, encoding: 'utf8' })
    .filter((name) => statSync(join(runs, name)).isFile())
    .map((name) => ({ name, bytes: statSync(join(runs, name)).size }));
}

describe('attack: a read-only model fills the disk with spills', () => {
  it('24 reads of a 4 MB file under the embedded default keep at most the store budget (64 MiB) of spills, the newest readable', async () => {
    const line = `${'x'.repeat(99)}\n`;
    const gateway = open.gateway(await serveGateway({ console: { enabled: false } }, { files: { 'big.log': line.repeat(40_000) } }));
    const { client } = await connectClient(gateway.mcpUrl, 'attacker', undefined, gateway.auth);
    open.client(client);
    let last = '';
    for (let round = 0; round < 3; round += 1) {
      const results = await Promise.all(Array.from({ length: 8 }, () => client.callTool({ name: 'read_file', arguments: { path: 'big.log' } })));
      last = JSON.stringify(results.at(-1)?.content);
    }
    const kept = spills(gateway.workspace);
    const total = kept.reduce((sum, file) => sum + file.bytes, 0);
    expect(total, `${kept.length} spills, ${total} bytes`).toBeLessThanOrEqual(64 * MIB);
    // The bound drops the oldest spills, not the newest: the handle the last answer named is still there.
    const handle = /spill:([^/\s"\\]+)\/([0-9a-f]{24})/.exec(last);
    expect(handle, last.slice(-300)).not.toBeNull();
    expect(kept.map((file) => file.name)).toContain(join(handle?.[1] ?? '', handle?.[2] ?? ''));
  }, 30_000);
});
