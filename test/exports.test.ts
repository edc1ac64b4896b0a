import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import ts from 'typescript';
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

/** The names a declaration file exports, as TypeScript reads them: values (a class is one) and type-only names, each sorted. */
function declaredNames(file: string): { values: string[]; types: string[] } {
  const program = ts.createProgram([file], { noEmit: true, skipLibCheck: true, types: [], module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(file);
  const module = source === undefined ? undefined : checker.getSymbolAtLocation(source);
  if (module === undefined) throw new Error(`${file} is not a module`);
  const values: string[] = [];
  const types: string[] = [];
  for (const symbol of checker.getExportsOfModule(module)) {
    const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
    (target.flags & ts.SymbolFlags.Value ? values : types).push(symbol.name);
  }
  return { values: values.sort(), types: types.sort() };
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
        "CodeModeCancelledError",
        "CodeModeError",
        "ConfigurationError",
        "DuplicateToolError",
        "PolicyRuleError",
        "ReplayMissError",
        "ToolArgsInvalidError",
        "ToolBusyError",
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
        "createConfirm",
        "createLivePolicy",
        "createPolicy",
        "createReplayHost",
        "createScriptedTools",
        "createToolRegistry",
        "defineTool",
        "importClaudeSettings",
        "importGeminiPolicies",
        "instruction",
        "isUntrusted",
        "markUntrusted",
        "metrics",
        "placeToolResult",
        "placeUserContent",
        "redactSecrets",
        "requireCapability",
        "retry",
        "runToolCalls",
        "systemMessage",
        "timeout",
        "translateToolNames",
        "unwrapUntrusted",
        "withAttachments",
      ]
    `);
  });

  // The types count too: the root's declarations export the same values, these types, and nothing else.
  it('pins the type names of `toolgate`, at most 120 names in all', () => {
    const declared = declaredNames(join(root, 'dist/core/index.d.ts'));
    const entry = report['.'];
    expect(declared.values).toEqual(entry?.ok === true ? entry.names : undefined);
    expect(declared.values.length + declared.types.length).toBeLessThanOrEqual(120);
    expect(declared.types).toMatchInlineSnapshot(`
      [
        "AnyToolDefinition",
        "ApprovalController",
        "ApprovalMode",
        "ArgumentPolicyInput",
        "AroundWrapper",
        "ClaimResolution",
        "CodeRuntime",
        "ConfirmActionHook",
        "CreateConfirmOptions",
        "CreatePolicyOptions",
        "CreateToolRegistryOptions",
        "DispatchContext",
        "EgressCapability",
        "FsCapability",
        "IdentityPolicyInput",
        "ImportedPolicy",
        "InvocationPlan",
        "Journal",
        "JournalClaim",
        "JournalEvent",
        "JournalPrepareInput",
        "JournalPrepareResult",
        "JournalSettleInput",
        "JournalVerifyResult",
        "JsonSchema",
        "LivePolicy",
        "MatchedRule",
        "McpCapability",
        "MediaStore",
        "OsCapability",
        "PolicyDecision",
        "PolicyRule",
        "PolicySnapshot",
        "PolicyToolView",
        "PostExecuteHook",
        "PreExecuteHook",
        "ProcessCapability",
        "PromptHook",
        "ProviderName",
        "ProviderTools",
        "RecordedResult",
        "RecordingQuery",
        "RuleDecision",
        "RunCodeResult",
        "RunToolCallsOptions",
        "SecretsCapability",
        "ToolApprovalDecision",
        "ToolApprovalRequest",
        "ToolCall",
        "ToolDefinition",
        "ToolDispatchContext",
        "ToolExecution",
        "ToolFacts",
        "ToolFailure",
        "ToolGuard",
        "ToolHooks",
        "ToolHost",
        "ToolInfo",
        "ToolOutcome",
        "ToolOutputStore",
        "ToolPolicy",
        "ToolReceipt",
        "ToolRegistry",
        "ToolSchema",
        "ToolStepResult",
        "ToolSuccess",
        "ToolgateErrorCode",
        "ToolgateEvent",
        "ToolgateEventMap",
        "ToolgateEventName",
        "ToolgateListener",
        "TrustedText",
        "UnresolvedClaim",
        "ValidationIssue",
      ]
    `);
  });
});
