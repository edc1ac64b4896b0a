import type { AnyToolDefinition, JsonSchema } from '../../core/internal.js';

/**
 * The tool catalog as Markdown, from the definitions alone: description,
 * policy class, facts, model-visible arguments (configOnly parameters listed
 * apart) and the documented return shape. Pure and deterministic, so a test
 * can compare it with the checked-in `docs/tool-catalog.md`.
 */
export function renderToolCatalog(tools: readonly AnyToolDefinition[]): string {
  const lines = [
    '# Built-in tool catalog',
    '',
    '<!-- Generated from the tool definitions by renderToolCatalog (src/node/catalog). Do not edit by hand: run `UPDATE_CATALOG=1 npx vitest run src/node/catalog`. -->',
    '',
    '| tool | policy class | facts |',
    '|---|---|---|',
    ...tools.map((tool) => `| [\`${tool.name}\`](#${tool.name}) | ${policyClass(tool)} | ${facts(tool)} |`),
    '',
  ];
  for (const tool of tools) {
    lines.push(`## ${tool.name}`, '', tool.description, '');
    lines.push(`- **Policy class:** ${policyClass(tool)}`);
    if (tool.configOnly !== undefined && tool.configOnly.length > 0) lines.push(`- **Configuration only** (never shown to a model): ${tool.configOnly.map((name) => `\`${name}\``).join(', ')}`);
    lines.push('', '**Arguments**', '', ...argumentTable(tool.input as JsonSchema, new Set(tool.configOnly ?? [])), '');
    const output = tool.output as JsonSchema | undefined;
    if (output !== undefined) {
      lines.push('**Returns**', '');
      if (typeof output.description === 'string') lines.push(output.description, '');
      lines.push('```json', JSON.stringify(output, null, 2), '```', '');
    }
  }
  return `${lines.join('\n').trimEnd()}\n`;
}

function policyClass(tool: AnyToolDefinition): string {
  const policy = tool.policy ?? {};
  const parts = [
    policy.fsScoped === true ? 'fsScoped' : undefined,
    policy.fsWrite === true ? 'fsWrite' : undefined,
    policy.spawnsProcess === true ? 'spawnsProcess' : undefined,
    policy.egress === undefined ? undefined : `egress: ${policy.egress}`,
    policy.os === true ? 'os' : undefined,
    policy.requiresGate === true ? 'requiresGate' : undefined,
  ].filter((part): part is string => part !== undefined);
  return parts.length === 0 ? '—' : parts.map((part) => `\`${part}\``).join(', ');
}

function facts(tool: AnyToolDefinition): string {
  const entries = Object.entries(tool.facts ?? {}).filter(([, value]) => value === true);
  return entries.length === 0 ? '—' : entries.map(([name]) => name).join(', ');
}

function argumentTable(schema: JsonSchema, configOnly: ReadonlySet<string>): string[] {
  const properties = (schema.properties ?? {}) as Readonly<Record<string, JsonSchema>>;
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  const names = Object.keys(properties).filter((name) => !configOnly.has(name));
  if (names.length === 0) return ['None.'];
  return [
    '| name | type | required | description |',
    '|---|---|---|---|',
    ...names.map((name) => {
      const property = properties[name] ?? {};
      return `| \`${name}\` | ${typeOf(property)} | ${required.has(name) ? 'yes' : 'no'} | ${typeof property.description === 'string' ? property.description : ''} |`;
    }),
  ];
}

function typeOf(schema: JsonSchema): string {
  if (Array.isArray(schema.enum)) return schema.enum.map((value) => `\`${JSON.stringify(value)}\``).join(' \\| ');
  if (Array.isArray(schema.anyOf)) return (schema.anyOf as JsonSchema[]).map(typeOf).join(' \\| ');
  if (schema.type === 'array') return `${typeOf((schema.items ?? {}) as JsonSchema)}[]`;
  if (Array.isArray(schema.type)) return schema.type.join(' \\| ');
  if (schema.type === 'object' && typeof schema.additionalProperties === 'object') return `record of ${typeOf(schema.additionalProperties as JsonSchema)}`;
  return typeof schema.type === 'string' ? schema.type : 'any';
}
