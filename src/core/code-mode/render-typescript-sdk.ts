import type { ToolInfo } from '../registry/registry-types.js';
import { docComment, schemaDocLines } from './schema-docs.js';
import { schemaToTypeScript } from './schema-to-typescript.js';
import { sdkTypeNames } from './sdk-type-names.js';

/**
 * The TypeScript declarations of the `tools` object a script calls: one
 * typed async function per tool, with doc comments from the tool's
 * description and its parameter schema. Valid `.d.ts` text whatever the
 * schemas and descriptions hold.
 */
export function renderTypeScriptSdk(tools: readonly ToolInfo[]): string {
  const names = sdkTypeNames(tools);
  const lines = [
    '// The tools SDK. Each function runs one governed tool call; a refused or failed call throws ToolCallError.',
    '',
    '/** A tool call that was refused (policy, approval, grant) or failed. */',
    'declare class ToolCallError extends Error {',
    '  /** The toolgate error code, e.g. POLICY_DENIED, DENIED_BY_USER, ARGS_INVALID, UNKNOWN_TOOL. */',
    '  readonly code: string;',
    '  /** Why a policy or an approver refused, when one did. */',
    '  readonly reason?: string;',
    '  readonly tool: string | undefined;',
    '}',
  ];
  const members: string[] = [];
  for (const tool of tools) {
    const typeName = names.get(tool.key) as string;
    const input = `${typeName}Input`;
    const output = `${typeName}Output`;
    lines.push('', `type ${input} = ${schemaToTypeScript(tool.inputSchema, { root: tool.inputSchema })};`);
    lines.push(`type ${output} = ${tool.outputSchema === undefined ? 'unknown' : schemaToTypeScript(tool.outputSchema, { root: tool.outputSchema })};`);
    const doc = docComment([...tool.description.split(/\r?\n/), ...parameterDocs(tool)], '  ');
    if (doc.length > 0) members.push(doc);
    const optional = !hasRequired(tool.inputSchema);
    const key = /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(tool.key) ? tool.key : JSON.stringify(tool.key);
    members.push(`  ${key}(args${optional ? '?' : ''}: ${input}): Promise<${output}>;`);
  }
  lines.push('', 'declare const tools: {', ...members, '};', '');
  return lines.join('\n');
}

function parameterDocs(tool: ToolInfo): string[] {
  const properties = tool.inputSchema.properties;
  if (typeof properties !== 'object' || properties === null) return [];
  const docs: string[] = [];
  for (const [name, schema] of Object.entries(properties as Record<string, unknown>)) {
    const [first, ...rest] = schemaDocLines(schema);
    if (first === undefined) continue;
    docs.push(`@param args.${name} ${first}`, ...rest.map((line) => `  ${line}`));
  }
  return docs;
}

function hasRequired(schema: ToolInfo['inputSchema']): boolean {
  return Array.isArray(schema.required) && schema.required.length > 0;
}
