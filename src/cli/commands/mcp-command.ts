import { ToolgateError } from '../../core/internal.js';
import { reviewWithheld } from '../../console/review-withheld.js';
import type { WithheldReview } from '../../console/console-types.js';
import { CliError } from '../cli-error.js';
import type { CliOutput } from '../cli-output.js';
import type { ResolvedConfig } from '../config/config-types.js';
import { openGateway } from '../runtime/open-gateway.js';
import { terminalJson, terminalLine } from '../terminal-text.js';

const SHA256 = /^[0-9a-f]{64}$/;

/**
 * `toolgate mcp withheld`: the upstream definitions withheld now, each
 * with what changed since it was approved (when the pin kept the approved
 * one), shown whole (hidden characters already removed) with the digest
 * that approves exactly it.
 */
export async function runMcpWithheld(config: ResolvedConfig, output: CliOutput): Promise<void> {
  const gateway = await openGateway(config);
  try {
    const withheld = reviewWithheld(gateway.connection.listWithheld());
    output.result(withheld, () => (withheld.length === 0 ? 'No MCP definition is withheld.' : withheld.map(renderWithheld).join('\n\n')));
  } finally {
    await gateway.close();
  }
}

/**
 * `toolgate mcp approve <name> --digest <sha256>`: pin the definition that
 * was reviewed. The digest is required: if the upstream offers anything else
 * by now, nothing is pinned.
 */
export async function runMcpApprove(config: ResolvedConfig, name: string, digest: string, output: CliOutput): Promise<void> {
  if (!SHA256.test(digest)) throw new CliError('usage', '--digest takes the sha256 that `toolgate mcp withheld` shows for the definition.');
  const gateway = await openGateway(config);
  try {
    await gateway.connection.approvePin(name, { by: 'cli', digest });
  } catch (error) {
    // Not withheld, or changed again since it was listed: the message says which, and nothing was pinned.
    if (error instanceof ToolgateError && error.code === 'CONFIGURATION_INVALID') throw new CliError('tool', error.message);
    throw error;
  } finally {
    await gateway.close();
  }
  output.result(
    { approved: name, digest },
    () => `Approved ${name} (sha256 ${digest}). A gateway started from now on offers it; a running one offers it once it re-lists the server (or approve it in its console).`,
  );
}

function renderWithheld(entry: WithheldReview): string {
  const why = entry.reason === 'changed' ? 'changed since it was approved' : 'not approved yet';
  return [
    // The upstream's tool name is its own text, never scanned, and a title may break its line: one line each, written out.
    `${entry.name}  (server ${entry.server}, tool ${terminalLine(entry.tool)}): ${why}`,
    ...(entry.changes === undefined ? [] : ['  what changed (- approved, + offered):', indent(entry.changes, 4), '  the offered definition, whole:']),
    ...(entry.uncompared === true ? ['  (too large, or too unlike the approved definition, to be compared in time: not compared line by line; read the offered definition whole)'] : []),
    ...(entry.changes === undefined && entry.uncompared !== true && entry.reason === 'changed' ? ['  (the approved definition was not kept: it was approved before toolgate kept definitions; compare the digests)'] : []),
    ...(entry.offered.title === undefined ? [] : [`  title: ${terminalLine(entry.offered.title)}`]),
    '  description:',
    indent(entry.offered.description, 4),
    '  input schema:',
    indent(terminalJson(entry.offered.inputSchema, 2), 4),
    ...(entry.offered.outputSchema === undefined ? [] : ['  output schema:', indent(terminalJson(entry.offered.outputSchema, 2), 4)]),
    '  annotations:',
    indent(entry.offered.annotations === undefined ? '(none)' : terminalJson(entry.offered.annotations, 2), 4),
    `  offered sha256: ${entry.digest}`,
    ...(entry.pinnedDigest === undefined ? [] : [`  approved sha256: ${entry.pinnedDigest}`]),
    `  approve it with: toolgate mcp approve ${entry.name} --digest ${entry.digest}`,
  ].join('\n');
}

function indent(text: string, spaces: number): string {
  const pad = ' '.repeat(spaces);
  return text
    .split('\n')
    .map((line) => pad + line)
    .join('\n');
}
