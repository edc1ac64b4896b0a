import type { ProviderName, ToolInfo } from '../../core/index.js';
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
      const list = registry.list();
      output.result(list, () => renderToolTable(list));
    } else {
      const projected = registry.project(format as ProviderName);
      output.result(projected, (value) => JSON.stringify(value, null, 2));
    }
  } finally {
    await gateway.close();
  }
}

function renderToolTable(list: readonly ToolInfo[]): string {
  return formatTable(
    ['tool', 'effect', 'risk', 'governed', 'source', 'description'],
    list.map((info) => [info.key, info.effect, info.risk, info.governed ? 'yes' : 'no', info.source, firstSentence(info.description)]),
  );
}

function firstSentence(text: string): string {
  const line = text.split('\n')[0] ?? '';
  return line.length > 72 ? `${line.slice(0, 71)}…` : line;
}
