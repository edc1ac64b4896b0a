import type { ProviderName, ToolInfo, ToolRegistry } from '../../core/internal.js';
import { upstreamGovernanceOf } from '../../mcp/build-upstream-tool.js';
import type { UpstreamGovernance } from '../../mcp/upstream-governance.js';
import { CliError, EXIT_CODES } from '../cli-error.js';
import { formatTable, type CliOutput } from '../cli-output.js';
import type { ResolvedConfig } from '../config/config-types.js';
import { describeServerDown } from '../runtime/describe-server-down.js';
import { terminalJson } from '../terminal-text.js';
import { openGateway, type Gateway } from '../runtime/open-gateway.js';
import { TOOL_FORMATS } from '../program/option-choices.js';

/**
 * `toolgate tools`: what the gateway serves, as a table or as one provider's
 * wire tools. An upstream server that is down is reported on stderr, named,
 * with why and the tail of its stderr, and the others are listed; `strict`
 * makes that exit 3.
 */
export async function runTools(config: ResolvedConfig, format: string, output: CliOutput, options: { readonly strict?: boolean } = {}): Promise<number> {
  if (!(TOOL_FORMATS as readonly string[]).includes(format)) throw new CliError('usage', `--format must be one of ${TOOL_FORMATS.join(', ')}.`);
  const gateway = await openGateway(config);
  try {
    for (const warning of gateway.warnings) output.info(`warning: ${warning}`);
    const down = reportDownServers(gateway, output);
    const registry = gateway.registry();
    if (format === 'table') {
      const list = registry.list().map((info) => ({ ...info, ...upstreamOf(registry, info) }));
      output.result(list, () => renderToolTable(list));
    } else {
      const projected = registry.project(format as ProviderName);
      output.result(projected, (value) => terminalJson(value, 2));
    }
    return down > 0 && options.strict === true ? EXIT_CODES.denied : EXIT_CODES.ok;
  } finally {
    await gateway.close();
  }
}

/** Down servers go to stderr (as one JSON document with `--json`, so stdout stays the list); returns how many. */
function reportDownServers(gateway: Gateway, output: CliOutput): number {
  const down = gateway.connection.servers().filter((status) => status.state !== 'up');
  if (down.length === 0) return 0;
  if (output.json) process.stderr.write(`${terminalJson({ serversDown: down })}\n`);
  else for (const status of down) output.info(describeServerDown(status, 'its tools are not listed'));
  return down.length;
}

/** An upstream tool's governance (governed or not and why, its targets), beside what the registry says of it. */
function upstreamOf(registry: ToolRegistry, info: ToolInfo): { governance?: UpstreamGovernance } {
  const governance = upstreamGovernanceOf(registry.get(info.key));
  return governance === undefined ? {} : { governance };
}

function renderToolTable(list: readonly (ToolInfo & { governance?: UpstreamGovernance })[]): string {
  return formatTable(
    ['tool', 'effect', 'risk', 'governed', 'targets', 'source', 'description'],
    list.map((info) => [
      info.key,
      info.effect,
      info.risk,
      `${info.governed ? 'yes' : 'no'}${info.governance === undefined ? '' : ` (${info.governance.reason})`}`,
      info.governance === undefined ? '' : describeTargets(info.governance),
      info.source,
      firstSentence(info.description),
    ]),
  );
}

/** `read path=/path`, `write paths=/source,/destination`, `url=/url`; `none` for an upstream tool whose arguments no target names. */
function describeTargets(governance: UpstreamGovernance): string {
  const parts = Object.entries(governance.targets).map(([kind, pointer]) => `${kind}=${Array.isArray(pointer) ? pointer.join(',') : String(pointer)}`);
  if (parts.length === 0) return 'none';
  return `${governance.access === undefined ? '' : `${governance.access} `}${parts.join(' ')}`;
}

function firstSentence(text: string): string {
  const line = text.split('\n')[0] ?? '';
  return line.length > 72 ? `${line.slice(0, 71)}…` : line;
}
