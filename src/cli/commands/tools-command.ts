import type { ProviderName, ToolInfo, ToolRegistry } from '../../core/index.js';
import { upstreamGovernanceOf, type UpstreamGovernance } from '../../mcp/index.js';
import { CliError } from '../cli-error.js';
import { formatTable, type CliOutput } from '../cli-output.js';
import type { ResolvedConfig } from '../config/config-types.js';
import { openGateway } from '../runtime/open-gateway.js';

export const TOOL_FORMATS = ['table', 'openai-chat', 'openai-responses', 'anthropic', 'gemini', 'mcp'] as const;
export type ToolFormat = (typeof TOOL_FORMATS)[number];

/** `toolgate tools`: what the gateway serves, as a table or as one provider's wire tools. */
export async function runTools(config: ResolvedConfig, format: string, output: CliOutput): Promise<void> {
  if (!(TOOL_FORMATS as readonly string[]).includes(format)) throw new CliError('usage', `--format must be one of ${TOOL_FORMATS.join(', ')}.`);
  const gateway = await openGateway(config);
  try {
    const registry = gateway.registry();
    if (format === 'table') {
      const list = registry.list().map((info) => ({ ...info, ...upstreamOf(registry, info) }));
      output.result(list, () => renderToolTable(list));
    } else {
      const projected = registry.project(format as ProviderName);
      output.result(projected, (value) => JSON.stringify(value, null, 2));
    }
  } finally {
    await gateway.close();
  }
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
