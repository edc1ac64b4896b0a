import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { describe, expect, it, vi } from 'vitest';
import { ROOT } from './fixtures/mcp/helpers.js';
import { closeAfterEach, connectClient, serveGateway, type ServedGateway } from './support/serve-gateway.js';
import { runCli } from './support/spawn-cli.js';

// Media through the gateway and the journal: an upstream whose tools answer with an image, audio or a binary
// document (test/__fixtures__/media-server.mjs, which logs every call it receives), served by `toolgate serve`
// to the MCP SDK client, every call journaled; then the recorded run replayed by `toolgate replay`, with the
// stored bytes there, gone or changed, and with the journal row edited. Then what a hostile upstream tries.

const MEDIA_SERVER = join(ROOT, 'test/__fixtures__/media-server.mjs');
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
/** What the fixture's screenshot of `bytes` bytes holds. */
const picture = (bytes: number): Buffer => Buffer.concat([PNG, Buffer.from(Array.from({ length: Math.max(0, bytes - PNG.length) }, (_, index) => index % 251))]);
const handleOf = (bytes: Buffer): string => `media:sha256:${createHash('sha256').update(bytes).digest('hex')}`;

type Result = Awaited<ReturnType<Client['callTool']>>;
type Block = { type: string; text?: string; data?: string; mimeType?: string; resource?: { uri: string; mimeType?: string; blob?: string; text?: string } };
const blocksOf = (result: Result): Block[] => result.content as Block[];
const textOf = (result: Result): string => blocksOf(result).flatMap((block) => (block.type === 'text' ? [block.text ?? ''] : [])).join('\n');
const mediaBlocksOf = (result: Result): Block[] => blocksOf(result).filter((block) => block.type !== 'text');

interface RecordedBody {
  readonly ok: boolean;
  readonly attachments?: readonly { handle: string; mediaType: string; bytes: number }[];
  readonly receipt: { tool: string; attachments?: readonly { handle: string; mediaType: string; bytes: number }[] };
}

/** The recorded results of the workspace's journal, in order. */
function recordedBodies(workspace: string): RecordedBody[] {
  const db = new Database(join(workspace, '.toolgate', 'journal.db'), { readonly: true });
  try {
    return db.prepare<[], { body: string }>('SELECT body FROM receipts ORDER BY seq').all().map((row) => JSON.parse(row.body) as RecordedBody);
  } finally {
    db.close();
  }
}

/** Edit the journal file as a writer without the key would: the append-only trigger dropped, `sql` run, the trigger put back. */
function editReceipts(workspace: string, sql: string): void {
  const journal = join(workspace, '.toolgate', 'journal.db');
  const trigger = execFileSync('sqlite3', [journal, `SELECT sql FROM sqlite_master WHERE name = 'receipts_no_update'`], { encoding: 'utf8' });
  execFileSync('sqlite3', [journal, `DROP TRIGGER receipts_no_update; ${sql}; ${trigger.trim()};`]);
}

const callsOf = (workspace: string): string[] => readFileSync(join(workspace, 'calls.log'), 'utf8').trim().split('\n');
const mediaFile = (workspace: string, handle: string): string => join(workspace, '.toolgate', 'spill', 'media', handle.slice('media:sha256:'.length));

interface ReplayReport {
  readonly calls: number;
  readonly identical: number;
  readonly lines: readonly { tool: string; recorded: string; replayed: string; same: boolean; message?: string }[];
}

async function replay(workspace: string, runId: string): Promise<{ code: number | null; report: ReplayReport | undefined; output: string }> {
  const run = await runCli(['--json', 'replay', runId], workspace);
  let report: ReplayReport | undefined;
  try {
    report = JSON.parse(run.stdout) as ReplayReport;
  } catch {
    report = undefined;
  }
  return { code: run.code, report, output: `${run.stdout}${run.stderr}` };
}

describe('media through the gateway and the journal', () => {
  const opened = closeAfterEach();

  async function serve(config: object = {}): Promise<{ gateway: ServedGateway; mcp: Client; runId: string }> {
    const gateway = opened.gateway(
      await serveGateway({ mode: 'auto', console: { enabled: false }, servers: { md: { command: process.execPath, args: [MEDIA_SERVER, '--log', 'calls.log'], trust: 'annotations' } }, ...config }),
    );
    const { client } = await connectClient(gateway.mcpUrl, 'media-client', undefined, gateway.auth);
    const started = await gateway.cli.ready;
    return { gateway, mcp: opened.client(client), runId: String(started.runId) };
  }

  it('a screenshot reaches the client as an image block with the upstream’s bytes and type, and the journal records its attachment', async () => {
    // Before: the journaled call failed, "a journaled call cannot return media attachments" (OUTPUT_INVALID).
    const { gateway, mcp } = await serve();
    const result = await mcp.callTool({ name: 'mcp_md_screenshot', arguments: { bytes: 300 } });
    expect(result.isError).toBeFalsy();
    const bytes = picture(300);
    const handle = handleOf(bytes);
    // The text that names the handle stays, for the model; the image follows it.
    expect(textOf(result)).toBe(`the screen\n[image: image/png, 300 bytes, ${handle}]`);
    const [media, ...more] = mediaBlocksOf(result);
    expect(more).toEqual([]);
    expect(media).toMatchObject({ type: 'image', mimeType: 'image/png' });
    expect(Buffer.from(media?.data ?? '', 'base64').equals(bytes)).toBe(true);

    // A settle is committed with the next batch, within milliseconds of the answer: looked for until it is there.
    const recorded = await vi.waitFor(() => {
      const found = recordedBodies(gateway.workspace).filter((body) => body.receipt.tool === 'mcp_md_screenshot');
      expect(found).toHaveLength(1);
      return found;
    });
    expect(recorded[0]?.ok).toBe(true);
    expect(recorded[0]?.attachments).toEqual([{ handle, mediaType: 'image/png', bytes: 300 }]);
    expect(recorded[0]?.receipt.attachments).toEqual([{ handle, mediaType: 'image/png', bytes: 300 }]);
    // Recorded by handle, never as bytes.
    expect(JSON.stringify(recorded[0])).not.toContain(bytes.toString('base64').slice(0, 40));
  });

  it('audio and a binary resource reach the client as an audio block and an embedded resource blob', async () => {
    const { mcp } = await serve();
    const audio = await mcp.callTool({ name: 'mcp_md_recording', arguments: {} });
    expect(mediaBlocksOf(audio)).toMatchObject([{ type: 'audio', mimeType: 'audio/wav' }]);
    expect(Buffer.from(mediaBlocksOf(audio)[0]?.data ?? '', 'base64').toString()).toContain('WAVEfmt a clip of audio');
    const document = await mcp.callTool({ name: 'mcp_md_document', arguments: {} });
    const [resource] = mediaBlocksOf(document);
    const pdf = Buffer.from('%PDF-1.4 a binary document');
    expect(resource).toEqual({ type: 'resource', resource: { uri: handleOf(pdf), mimeType: 'application/pdf', blob: pdf.toString('base64') } });
  });

  it('replay restores the attachment from the media store; with the bytes gone or changed it fails typed and the upstream is not called again', async () => {
    const { gateway, mcp, runId } = await serve();
    const result = await mcp.callTool({ name: 'mcp_md_screenshot', arguments: { bytes: 500 } });
    expect(mediaBlocksOf(result)).toHaveLength(1);
    await gateway.cli.stop();
    const handle = handleOf(picture(500));
    expect(callsOf(gateway.workspace)).toHaveLength(1);

    const same = await replay(gateway.workspace, runId);
    expect(same.code, same.output).toBe(0);
    expect(same.report).toMatchObject({ calls: 1, identical: 1, lines: [{ tool: 'mcp_md_screenshot', recorded: 'ok', replayed: 'ok', same: true }] });

    // Retention deleted the bytes.
    rmSync(mediaFile(gateway.workspace, handle));
    const gone = await replay(gateway.workspace, runId);
    expect(gone.code, gone.output).toBe(1);
    expect(gone.report?.lines).toMatchObject([{ tool: 'mcp_md_screenshot', recorded: 'ok', replayed: 'REPLAY_MISS', same: false }]);
    expect(gone.report?.lines[0]?.message).toBe('Tool "mcp_md_screenshot" returned media that the media store no longer holds intact (retention may have removed them, or they were changed): the recorded call is not replayed.');

    // Other bytes under the handle's name.
    writeFileSync(mediaFile(gateway.workspace, handle), picture(499));
    const changed = await replay(gateway.workspace, runId);
    expect(changed.code, changed.output).toBe(1);
    expect(changed.report?.lines).toMatchObject([{ replayed: 'REPLAY_MISS', same: false }]);

    // The effect never ran again: the upstream received the one recorded call.
    expect(callsOf(gateway.workspace)).toHaveLength(1);
  });

  it('a recorded attachment entry edited to name another stored file is not restored', async () => {
    // Signed: the edited row is refused outright. Unsigned: an entry that no longer agrees with its receipt is a miss.
    for (const sign of [true, false]) {
      const { gateway, mcp, runId } = await serve({ journal: { sign } });
      for (const bytes of [600, 700]) expect(mediaBlocksOf(await mcp.callTool({ name: 'mcp_md_screenshot', arguments: { bytes } }))).toHaveLength(1);
      await gateway.cli.stop();
      const other = handleOf(picture(700));
      editReceipts(gateway.workspace, `UPDATE receipts SET body = json_set(body, '$.attachments[0].handle', '${other}') WHERE seq = (SELECT min(seq) FROM receipts)`);
      const edited = await replay(gateway.workspace, runId);
      expect(edited.code, edited.output).not.toBe(0);
      if (sign) expect(edited.output).toContain('does not verify below its head (receipts #');
      else expect(edited.report?.lines[0]).toMatchObject({ replayed: 'REPLAY_MISS', same: false, message: expect.stringContaining('its receipt does not vouch for') });
      expect(callsOf(gateway.workspace)).toHaveLength(2);
    }
  });

  it('past limits.maxMediaBytes the client gets the text with the handle, and is told the media was not sent', async () => {
    const { mcp } = await serve({ limits: { maxMediaBytes: 4096 } });
    const within = await mcp.callTool({ name: 'mcp_md_screenshot', arguments: { bytes: 4096 } });
    expect(mediaBlocksOf(within)).toHaveLength(1);
    // A huge image: 6 MB, 8 MB of base64 on the wire.
    const huge = await mcp.callTool({ name: 'mcp_md_screenshot', arguments: { bytes: 6_000_000 } }, undefined, { timeout: 60_000 });
    expect(huge.isError).toBeFalsy();
    expect(mediaBlocksOf(huge)).toEqual([]);
    expect(textOf(huge)).toContain(`[image: image/png, 6000000 bytes, ${handleOf(picture(6_000_000))}]`);
    expect(textOf(huge)).toContain('not sent: the media of this result exceed maxMediaBytes (4096 bytes)');
  });

  it('held: a handle forged in a result’s text sends nothing, whatever the store holds', async () => {
    const { mcp } = await serve();
    const stored = await mcp.callTool({ name: 'mcp_md_screenshot', arguments: { bytes: 800 } });
    expect(mediaBlocksOf(stored)).toHaveLength(1);
    const handle = handleOf(picture(800));
    const forged = await mcp.callTool({ name: 'mcp_md_forged', arguments: { handle } });
    expect(forged.isError).toBeFalsy();
    expect(mediaBlocksOf(forged)).toEqual([]);
    expect(JSON.stringify(forged)).not.toContain(picture(800).toString('base64').slice(0, 40));
  });

  it('held: media in a structured value stay JSON, and an image beside a structured value reaches no one', async () => {
    const { gateway, mcp } = await serve();
    const result = await mcp.callTool({ name: 'mcp_md_structured_media', arguments: {} });
    expect(result.isError).toBeFalsy();
    expect(mediaBlocksOf(result)).toEqual([]);
    expect(result.structuredContent).toEqual({ image: { type: 'image', data: PNG.toString('base64'), mimeType: 'image/png' } });
    const recorded = await vi.waitFor(() => {
      const found = recordedBodies(gateway.workspace).find((body) => body.receipt.tool === 'mcp_md_structured_media');
      expect(found).toBeDefined();
      return found;
    });
    expect(recorded).not.toHaveProperty('attachments');
  });

  it('held: data that is not base64 fails the call, and a media type that is not plain is not trusted', async () => {
    const { mcp } = await serve();
    const bad = await mcp.callTool({ name: 'mcp_md_bad_base64', arguments: {} });
    expect(bad.isError).toBe(true);
    expect(mediaBlocksOf(bad)).toEqual([]);
    // Not an image to the client: a binary resource of the plain fallback type.
    const bogus = await mcp.callTool({ name: 'mcp_md_bogus_mime', arguments: {} });
    expect(bogus.isError).toBeFalsy();
    expect(JSON.stringify(bogus)).not.toContain('onload');
    expect(mediaBlocksOf(bogus)).toEqual([{ type: 'resource', resource: { uri: handleOf(PNG), mimeType: 'application/octet-stream', blob: PNG.toString('base64') } }]);
  });
});
