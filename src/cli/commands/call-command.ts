import { readFileSync } from 'node:fs';
import { unwrapUntrusted, type ToolOutcome } from '../../core/internal.js';
import { parseJsonOrThrow } from '../../core/errors/parse-json-or-throw.js';
import { CliError, exitCodeOfError } from '../cli-error.js';
import type { CliOutput } from '../cli-output.js';
import type { ResolvedConfig } from '../config/config-types.js';
import { openGateway } from '../runtime/open-gateway.js';
import { createTtyApprover } from '../tty-approver.js';

/** Exit code of one outcome: 0 ok, 1 tool failure, 2 usage (the caller's arguments or tool name), 3 denied. */
export function exitCodeOf(outcome: ToolOutcome): number {
  return outcome.ok ? 0 : exitCodeOfError(outcome.error.code);
}

/** The agent and the run id of every `toolgate call`. */
export const CLI_AGENT = 'cli';

/**
 * `toolgate call <tool> [json | -]`: one governed call from the terminal.
 * Approvals are asked at the terminal when there is one; without a
 * terminal a call that needs approval is denied (fail closed).
 */
export async function runCall(config: ResolvedConfig, tool: string, json: string | undefined, output: CliOutput, interactive: boolean): Promise<number> {
  const text = json === '-' ? readFileSync(0, 'utf8') : (json ?? '{}');
  const args = parseJsonOrThrow(text, () => new CliError('usage', 'The arguments must be a JSON object (or - to read one from standard input).'));
  const gateway = await openGateway(config, interactive ? { prompt: createTtyApprover() } : { prompt: () => Promise.resolve({ outcome: 'reject', noApprover: true, reason: 'no terminal to ask: run toolgate call in a terminal, or approve through toolgate serve and its console' }) });
  try {
    // Journaled as the terminal's own agent and run, never as the MCP client the gateway serves.
    const outcome = await gateway.registry().dispatch({ callId: `cli-${Date.now().toString(36)}`, name: tool, arguments: args }, { ...gateway.context, agent: CLI_AGENT, runId: CLI_AGENT });
    const receipt = outcome.receipt;
    output.result(
      outcome.ok
        ? { ok: true, value: outcome.value, content: unwrapUntrusted(outcome.content), receipt }
        : { ok: false, error: { ...outcome.error.toJSON() }, content: unwrapUntrusted(outcome.content), receipt },
      () => (outcome.ok ? unwrapUntrusted(outcome.content) : `${outcome.error.code}: ${outcome.error.message}`),
    );
    return exitCodeOf(outcome);
  } finally {
    await gateway.close();
  }
}
