// The public root `toolgate`: what tool authors and integrators use. Every
// name is listed here on purpose; what only the layers beside the engine
// share stays in `./internal.ts`. Adding a name is an API decision, and
// `test/exports.test.ts` pins the list (at most 120 names, types included).

// Tool definitions: what a tool author writes.
export { defineTool, type AnyToolDefinition, type JsonSchema, type ToolDefinition, type ToolDispatchContext, type ToolFacts, type ToolSchema } from './internal.js';

// The registry: immutable snapshots, scopes, projection and dispatch.
export { createToolRegistry, type CreateToolRegistryOptions, type ToolInfo, type ToolRegistry } from './internal.js';

// A call and its one outcome, and the plan `registry.prepare` returns.
export { withAttachments, type DispatchContext, type InvocationPlan, type ToolCall, type ToolFailure, type ToolOutcome, type ToolSuccess } from './internal.js';

// Hooks around a call, and the built-in wrappers.
export { metrics, retry, timeout, type AroundWrapper, type PostExecuteHook, type PreExecuteHook, type ToolExecution, type ToolGuard, type ToolHooks } from './internal.js';

// The host an embedder implements: the capabilities that perform side effects.
export {
  requireCapability,
  type EgressCapability,
  type FsCapability,
  type McpCapability,
  type MediaStore,
  type OsCapability,
  type ProcessCapability,
  type SecretsCapability,
  type ToolHost,
  type ToolOutputStore,
} from './internal.js';

// Policy: the declarative engine, live narrowing, importers, and the seam a custom policy implements.
export {
  createLivePolicy,
  createPolicy,
  importClaudeSettings,
  importGeminiPolicies,
  type ApprovalMode,
  type ArgumentPolicyInput,
  type CreatePolicyOptions,
  type IdentityPolicyInput,
  type ImportedPolicy,
  type LivePolicy,
  type MatchedRule,
  type PolicyDecision,
  type PolicyRule,
  type PolicySnapshot,
  type PolicyToolView,
  type RuleDecision,
  type ToolPolicy,
} from './internal.js';

// Approval: the confirm hook with its modes, and what an approver is asked and answers.
export {
  createConfirm,
  type ApprovalController,
  type ConfirmActionHook,
  type CreateConfirmOptions,
  type PromptHook,
  type ToolApprovalDecision,
  type ToolApprovalRequest,
} from './internal.js';

// Errors: one base class with a string code, and a subclass per failure.
export {
  CodeModeCancelledError,
  CodeModeError,
  ConfigurationError,
  DuplicateToolError,
  PolicyRuleError,
  ReplayMissError,
  ToolArgsInvalidError,
  ToolBusyError,
  ToolCancelledError,
  ToolDefinitionError,
  ToolDeniedByUserError,
  ToolExecutionError,
  ToolOutputInvalidError,
  ToolPolicyError,
  ToolTimeoutError,
  ToolUnavailableError,
  ToolgateError,
  UnknownToolError,
  type ToolgateErrorCode,
  type ValidationIssue,
} from './internal.js';

// Receipts and registry events.
export { type ToolReceipt, type ToolgateEvent, type ToolgateEventMap, type ToolgateEventName, type ToolgateListener } from './internal.js';

// The journal interface a store implements, and replay from a recording.
export {
  createReplayHost,
  createScriptedTools,
  type ClaimResolution,
  type Journal,
  type JournalClaim,
  type JournalEvent,
  type JournalPrepareInput,
  type JournalPrepareResult,
  type JournalSettleInput,
  type JournalVerifyResult,
  type RecordedResult,
  type RecordingQuery,
  type UnresolvedClaim,
} from './internal.js';

// Untrusted data: the mark, its placement in a provider's messages, trusted instructions, redaction.
export {
  Untrusted,
  instruction,
  isUntrusted,
  markUntrusted,
  placeToolResult,
  placeUserContent,
  redactSecrets,
  systemMessage,
  unwrapUntrusted,
  type TrustedText,
} from './internal.js';

// Provider projection and tool names from other agents' settings.
export { translateToolNames, type ProviderName, type ProviderTools } from './internal.js';

// Code Mode's runtime seam and prompt, and the agent step.
export { assembleToolPrompt, runToolCalls, type CodeRuntime, type RunCodeResult, type RunToolCallsOptions, type ToolStepResult } from './internal.js';
