import type { ToolInfo } from '../registry/registry-types.js';
import type { JsonSchema } from '../tools/tool-types.js';
import { resolveRef, schemaDocLines } from './schema-docs.js';
import { sdkTypeNames } from './sdk-type-names.js';

const MAX_DEPTH = 8;
const PYTHON_KEYWORDS = new Set(
  'False None True and as assert async await break class continue def del elif else except finally for from global if import in is lambda nonlocal not or pass raise return try while with yield match case type'.split(' '),
);

/**
 * The Python stubs of the `tools` namespace for runtimes that report
 * `language: 'python'`: a TypedDict per tool input and one coroutine per
 * tool with a docstring from its description and parameters. Rendering
 * only: running Python is the runtime's business. A tool whose key is not a
 * Python identifier (a pinned version, a keyword) gets a safe name, and the
 * docstring names the tool it calls.
 */
export function renderPythonSdk(tools: readonly ToolInfo[]): string {
  const names = sdkTypeNames(tools);
  const lines = [
    '# The tools SDK. Each coroutine runs one governed tool call; a refused or failed call raises ToolCallError.',
    'from typing import Any, Literal, NotRequired, Required, TypedDict',
    '',
    '',
    'class ToolCallError(Exception):',
    '    code: str',
    '    reason: str | None',
    '    tool: str | None',
    '',
  ];
  const methods: string[] = [];
  for (const tool of tools) {
    const input = `${names.get(tool.key) as string}Input`;
    lines.push('', `${input} = TypedDict(${pyString(input)}, {${fields(tool.inputSchema).join(', ')}})`);
    const functionName = pythonName(tool.key);
    const output = tool.outputSchema === undefined ? 'Any' : pyType(tool.outputSchema, tool.outputSchema, 0);
    methods.push(
      '    @staticmethod',
      `    async def ${functionName}(args: ${input}) -> ${output}:`,
      docstring([...tool.description.split(/\r?\n/), ...(functionName === tool.key ? [] : ['', `Calls the tool ${tool.key}.`]), ...argumentDocs(tool)], '        '),
      '        ...',
      '',
    );
  }
  lines.push('', '', 'class tools:', ...(methods.length > 0 ? methods : ['    pass', '']));
  return lines.join('\n');
}

function fields(schema: JsonSchema): string[] {
  const properties = typeof schema.properties === 'object' && schema.properties !== null ? Object.entries(schema.properties as Record<string, unknown>) : [];
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  return properties.map(([name, property]) => `${pyString(name)}: ${required.has(name) ? 'Required' : 'NotRequired'}[${pyType(property, schema, 1)}]`);
}

function pyType(schema: unknown, root: JsonSchema, depth: number): string {
  if (typeof schema !== 'object' || schema === null || depth > MAX_DEPTH) return 'Any';
  const node = schema as JsonSchema;
  if (typeof node.$ref === 'string') return pyType(resolveRef(root, node.$ref), root, depth + 1);
  if ('const' in node) return pyLiteral([node.const]);
  if (Array.isArray(node.enum)) return pyLiteral(node.enum);
  const alternatives = Array.isArray(node.anyOf) ? node.anyOf : Array.isArray(node.oneOf) ? node.oneOf : undefined;
  if (alternatives !== undefined && alternatives.length > 0) return pyUnion(alternatives.map((entry) => pyType(entry, root, depth + 1)));
  const types = Array.isArray(node.type) ? node.type : node.type === undefined ? [] : [node.type];
  if (types.length === 0) return node.properties === undefined ? 'Any' : 'dict[str, Any]';
  return pyUnion(
    types.map((type) => {
      switch (type) {
        case 'string':
          return 'str';
        case 'integer':
          return 'int';
        case 'number':
          return 'float';
        case 'boolean':
          return 'bool';
        case 'null':
          return 'None';
        case 'array':
          return `list[${Array.isArray(node.items) ? 'Any' : pyType(node.items, root, depth + 1)}]`;
        case 'object':
          return 'dict[str, Any]';
        default:
          return 'Any';
      }
    }),
  );
}

function pyLiteral(values: readonly unknown[]): string {
  const rendered = values.map((value) =>
    typeof value === 'string' ? pyString(value) : typeof value === 'boolean' ? (value ? 'True' : 'False') : value === null ? 'None' : typeof value === 'number' && Number.isInteger(value) ? String(value) : undefined,
  );
  return rendered.some((entry) => entry === undefined) || rendered.length === 0 ? 'Any' : `Literal[${rendered.join(', ')}]`;
}

function pyUnion(types: readonly string[]): string {
  const unique = [...new Set(types)];
  return unique.includes('Any') ? 'Any' : unique.join(' | ');
}

/** A double-quoted Python string literal: JSON's escapes are Python's, and every non-ASCII character is escaped. */
function pyString(text: string): string {
  return JSON.stringify(text).replace(/[\u007f-\uffff]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

function pythonName(key: string): string {
  const name = key.replace(/[^A-Za-z0-9_]/g, '_').replace(/^(\d)/, '_$1');
  return PYTHON_KEYWORDS.has(name) ? `${name}_` : name;
}

function argumentDocs(tool: ToolInfo): string[] {
  const properties = tool.inputSchema.properties;
  if (typeof properties !== 'object' || properties === null) return [];
  const docs = ['', 'Args:'];
  for (const [name, schema] of Object.entries(properties as Record<string, unknown>)) {
    const [first = '', ...rest] = schemaDocLines(schema);
    docs.push(`    ${name}: ${first}`.trimEnd(), ...rest.map((line) => `        ${line}`));
  }
  return docs.length > 2 ? docs : [];
}

/** A docstring nothing inside can close: backslashes and quotes are escaped. */
function docstring(lines: readonly string[], indent: string): string {
  const body = lines.map((line) => line.replace(/\\/g, '\\\\').replace(/"/g, '\\"'));
  return [`${indent}"""${body[0] ?? ''}`, ...body.slice(1).map((line) => (line.length > 0 ? `${indent}${line}` : '')), `${indent}"""`].join('\n');
}
