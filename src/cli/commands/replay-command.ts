import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createReplayHost, createToolRegistry, sameAttachments, unwrapUntrusted, type MediaStore, type RecordedResult, type ReplaySession, type ToolRegistry } from '../../core/internal.js';
import { prepareOwnFolder } from '../../node/fs/prepare-own-folder.js';
import { nodeSha256 } from '../../node/digest/node-sha256.js';
import { createMediaStore } from '../../node/stores/create-media-store.js';
import { CliError } from '../cli-error.js';
import { formatTable, type CliOutput } from '../cli-output.js';
import type { ResolvedConfig } from '../config/config-types.js';
import { buildPolicy } from '../runtime/build-policy.js';
import { gatewaySpillDir } from '../runtime/gateway-host-options.js';
import { openJournalToRead } from '../runtime/open-journal-to-read.js';
import { connectUpstreams, servedBuiltins } from '../runtime/open-gateway.js';

export interface ReplayLine {
  readonly callId: string;
  readonly tool: string;
  readonly recorded: string;
  readonly replayed: string;
  readonly same: boolean;
  /** Why the replay failed, in the pipeline's secret-free words, when it did. */
  readonly message?: string;
}

/**
 * `toolgate replay <run>`: re-run every recorded call of a run against a
 * host that answers only from the journal — zero side effects — and compare
 * each outcome with the recording. A call whose arguments were redacted at
 * record time cannot match its action digest and is reported as a miss, and
 * so is one whose recorded media the gateway's media store no longer holds
 * intact, or whose value the journal did not keep (too large, or with no JSON form): the effect is
 * never performed again.
 */
export async function runReplay(config: ResolvedConfig, runId: string, output: CliOutput): Promise<number> {
  if (!existsSync(config.journal.path)) throw new CliError('usage', `No journal at ${config.journal.path}.`);
  const journal = openJournalToRead(config);
  try {
    const recorded: readonly RecordedResult[] = await journal.recordings({ runId });
    if (recorded.length === 0) throw new CliError('usage', `Run "${runId}" has no recorded calls in ${config.journal.path}.`);
    const mediaStore = openRecordedMedia(config);
    const session = createReplayHost(journal, { runId, ...(mediaStore === undefined ? {} : { mediaStore }) });
    const { snapshot } = await buildPolicy(config);
    const builtins = servedBuiltins(config);
    // An upstream tool is known by its definition, which only its server gives; the replay host has no
    // MCP capability, so a recorded call is answered from the journal and nothing reaches the server.
    const upstream = recorded.some((entry) => !builtins.some((tool) => tool.name === entry.receipt.tool));
    const connection = await connectUpstreams(config, upstream);
    try {
      const registry = connection.applyTo(createToolRegistry({ tools: builtins, host: session.host, sha256: nodeSha256, journal: session.journal, policy: snapshot }));
      return await replayAll(registry, recorded, session, config, runId, output);
    } finally {
      await connection.close();
    }
  } finally {
    journal.close();
  }
}

/**
 * The media store the gateway kept the recorded media in, read only: a
 * recorded call that returned media is replayed only while its bytes are
 * there. None when the folder was never made; a folder that is not this
 * user's own (a link, another user's) refuses the replay, as it refuses a start.
 */
function openRecordedMedia(config: ResolvedConfig): MediaStore | undefined {
  const spill = gatewaySpillDir(config);
  const folder = join(spill, 'media');
  if (!existsSync(folder)) return undefined;
  for (const own of [spill, folder]) {
    const problem = prepareOwnFolder(own);
    if (problem !== undefined) throw new CliError('config', `${own} ${problem}: toolgate keeps the media of recorded calls there. Remove it and replay again.`);
  }
  return createMediaStore(folder);
}

async function replayAll(registry: ToolRegistry, recorded: readonly RecordedResult[], session: ReplaySession, config: ResolvedConfig, runId: string, output: CliOutput): Promise<number> {
  const granted = registry.list().map((info) => info.key);
  const progress = output.progress(`replaying run ${runId}`, recorded.length);
  const lines: ReplayLine[] = [];
  for (const [index, entry] of recorded.entries()) {
    const receipt = entry.receipt;
    const outcome = await registry.dispatch(
      { callId: receipt.callId, name: receipt.version === undefined ? receipt.tool : `${receipt.tool}@${receipt.version}`, arguments: receipt.arguments },
      { agent: receipt.agent ?? config.agent, grantedTools: granted, runId, approval: { approvedActionDigests: receipt.actionDigest === undefined ? [] : [receipt.actionDigest] } },
    );
    const replayed = outcome.ok ? 'ok' : outcome.error.code;
    lines.push({
      callId: receipt.callId,
      tool: receipt.tool,
      recorded: entry.ok ? 'ok' : (entry.error?.code ?? 'error'),
      replayed,
      same: unwrapUntrusted(outcome.content) === entry.content && outcome.ok === entry.ok && sameAttachments(outcome.ok ? (outcome.attachments ?? []).map((attachment) => unwrapUntrusted(attachment)) : [], entry.attachments ?? []),
      ...(outcome.ok ? {} : { message: unwrapUntrusted(outcome.content) }),
    });
    progress.tick(index + 1);
  }
  progress.done();
  const same = lines.filter((line) => line.same).length;
  output.result({ runId, calls: lines.length, identical: same, stats: session.stats(), lines }, () =>
    [formatTable(['call', 'tool', 'recorded', 'replayed', 'identical'], lines.map((line) => [line.callId, line.tool, line.recorded, line.replayed, line.same ? 'yes' : 'NO'])), `${same} of ${lines.length} calls replayed identically, with no side effect`].join('\n'),
  );
  return same === lines.length ? 0 : 1;
}
