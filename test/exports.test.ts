import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '..');
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { name: string; exports: Record<string, unknown> };

// Real Node resolution of the built package through its own name (self-reference), in a
// fresh process: what a user's `import 'toolgate/…'` does, not what the test runner does.
const probe = `
const subpaths = JSON.parse(process.argv[1]);
const { createRequire } = await import('node:module');
const require = createRequire(process.cwd() + '/package.json');
const report = {};
for (const subpath of subpaths) {
  const specifier = subpath === '.' ? 'toolgate' : 'toolgate' + subpath.slice(1);
  try {
    if (subpath.endsWith('.json')) report[subpath] = { ok: true, file: require.resolve(specifier) };
    else report[subpath] = { ok: true, names: Object.keys(await import(specifier)).sort() };
  } catch (error) {
    report[subpath] = { ok: false, error: String(error && error.message).slice(0, 300) };
  }
}
console.log(JSON.stringify(report));
`;

type ProbeReport = Record<string, { ok: true; names?: string[]; file?: string } | { ok: false; error: string }>;

function probeExports(): ProbeReport {
  const output = execFileSync(process.execPath, ['--input-type=module', '-e', probe, JSON.stringify(Object.keys(manifest.exports))], { cwd: root, encoding: 'utf8' });
  return JSON.parse(output) as ProbeReport;
}

describe('package exports (after build)', () => {
  const report = probeExports();

  it('is the toolgate package with the planned subpaths', () => {
    expect(manifest.name).toBe('toolgate');
    expect(Object.keys(manifest.exports).sort()).toEqual([
      '.',
      './ai-sdk',
      './code-mode',
      './langchain',
      './mcp',
      './node',
      './openai-agents',
      './otel',
      './package.json',
      './sqlite',
      './testing',
    ]);
  });

  it.each(Object.keys(manifest.exports))('%s resolves and loads', (subpath) => {
    expect(report[subpath]).toMatchObject({ ok: true });
  });

  it('every subpath points at built JavaScript and declarations', () => {
    for (const [subpath, target] of Object.entries(manifest.exports)) {
      if (typeof target === 'string') continue;
      const { types, default: main } = target as { types: string; default: string };
      expect(readFileSync(join(root, main), 'utf8').length, subpath).toBeGreaterThan(0);
      expect(readFileSync(join(root, types), 'utf8').length, subpath).toBeGreaterThan(0);
    }
  });

  // Adding a name here is an API decision: review it, then update the snapshot.
  it('pins the public names of `toolgate`', () => {
    const entry = report['.'];
    expect(entry?.ok).toBe(true);
    expect(entry?.ok === true ? entry.names : undefined).toMatchInlineSnapshot(`
      [
        "ACTION_DIGEST_SCHEMA",
        "BOUNDED_SCHEMA_LIMITS",
        "CLAUDE_CODE_TOOLS",
        "CODE_MODE_TOOL_NAME",
        "CodeModeError",
        "ConfigurationError",
        "DEFAULT_MAX_CONCURRENT_CALLS",
        "DEFAULT_MAX_DELIVERED_BYTES",
        "DEFAULT_PROTECTED_PATHS",
        "DEFAULT_TOOL_RESULT_LIMITS",
        "DuplicateToolError",
        "MAX_NESTED_CALLS",
        "MAX_WIRE_NAME_LENGTH",
        "MCP_CALL_TOOL",
        "PolicyRuleError",
        "REDACTED",
        "ReplayMissError",
        "SDK_RENDERERS",
        "ToolArgsInvalidError",
        "ToolCancelledError",
        "ToolDefinitionError",
        "ToolDeniedByUserError",
        "ToolExecutionError",
        "ToolOutputInvalidError",
        "ToolPolicyError",
        "ToolTimeoutError",
        "ToolUnavailableError",
        "ToolgateError",
        "UnknownToolError",
        "Untrusted",
        "assembleToolPrompt",
        "boundText",
        "canonicalHost",
        "canonicalJson",
        "canonicalToolName",
        "checkBoundedSchema",
        "computeInvocationDigests",
        "createConfirm",
        "createLivePolicy",
        "createPolicy",
        "createReplayHost",
        "createScriptedTools",
        "createToolRegistry",
        "defineTool",
        "describeApproval",
        "findShellOperator",
        "guardrailFloor",
        "importClaudeSettings",
        "importGeminiPolicies",
        "instruction",
        "isUntrusted",
        "markUntrusted",
        "mcpToolName",
        "metrics",
        "placeToolResult",
        "placeUserContent",
        "projectArguments",
        "redactSecrets",
        "redactSecretsCounted",
        "renderPythonSdk",
        "renderToolSdk",
        "renderTypeScriptSdk",
        "requireCapability",
        "retry",
        "runToolCalls",
        "sha256Hex",
        "splitCommand",
        "systemMessage",
        "timeout",
        "toolNameMatches",
        "translateToolNames",
        "unwrapUntrusted",
        "wireToolName",
        "withAttachments",
      ]
    `);
  });
});
