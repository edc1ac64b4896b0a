// The engine-purity rule guards shipped code; this test runs the real Python compiler on the rendered text.
// eslint-disable-next-line no-restricted-imports
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { createToolRegistry } from '../registry/create-tool-registry.js';
import { defineTool } from '../tools/define-tool.js';
import { renderPythonSdk } from './render-python-sdk.js';

const python = spawnSync('python3', ['-c', 'import sys; print(sys.version_info >= (3, 11))'], { encoding: 'utf8' });
const hasPython = python.status === 0 && python.stdout.trim() === 'True';

const tools = [
  defineTool({
    name: 'read_file',
    description: 'Read a file.\nReturns its text.',
    input: {
      type: 'object',
      properties: { path: { type: 'string', description: 'Relative path.' }, mode: { enum: ['text', 'bytes'] }, limit: { type: ['integer', 'null'] }, tags: { type: 'array', items: { type: 'string' } } },
      required: ['path'],
    },
    output: { type: 'object', properties: { content: { type: 'string' } } },
    dispatch: () => ({ content: '' }),
  }),
  // Hostile text: docstring terminators, backslashes, non-ASCII, a Python keyword as a name, a pinned version.
  defineTool({
    name: 'import',
    version: '2.0.0',
    description: 'Ends a docstring """ and \\ escapes \u00e9 \u2028',
    input: { type: 'object', properties: { 'odd "key"': { type: 'string', description: '""" raise SystemExit """' }, choice: { const: true } } },
    dispatch: () => null,
  }),
];

describe('renderPythonSdk', () => {
  const sdk = renderPythonSdk(createToolRegistry({ tools }).list());

  it('renders a TypedDict per input and a coroutine per tool with docstrings', () => {
    expect(sdk).toContain('ReadFileInput = TypedDict("ReadFileInput", {"path": Required[str], "mode": NotRequired[Literal["text", "bytes"]], "limit": NotRequired[int | None], "tags": NotRequired[list[str]]})');
    expect(sdk).toContain('async def read_file(args: ReadFileInput) -> dict[str, Any]:');
    expect(sdk).toContain('async def import_2_0_0(args: ImportV2_0_0Input) -> Any:');
    expect(sdk).toContain('Calls the tool import@2.0.0.');
    expect(sdk).toContain('path: Relative path.');
  });

  it.skipIf(!hasPython)('is valid Python that defines the namespace, hostile text included', () => {
    const check = spawnSync('python3', ['-c', 'import sys; source = sys.stdin.read(); scope = {}; exec(compile(source, "sdk.py", "exec"), scope); print(sorted(n for n in vars(scope["tools"]) if not n.startswith("_")))'], {
      input: sdk,
      encoding: 'utf8',
    });
    expect(check.stderr).toBe('');
    expect(check.stdout.trim()).toBe("['import_2_0_0', 'read_file']");
  });
});
