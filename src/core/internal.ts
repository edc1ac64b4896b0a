// What the engine shares with the layers beside it (node, mcp, cli, console,
// journal, code-mode, otel, adapters, testing): the public root's names and
// the helpers those layers need. They import it by relative path; it is not a
// package export and carries no stability promise. The public root,
// `./index.ts`, names what tool authors and integrators use.

export { defineTool } from './tools/define-tool.js';
export type {
  AnyToolDefinition,
  FinalizeContentState,
  JournalTier,
  JsonSchema,
  PolicyTarget,
  ToolCallView,
  ToolDefinition,
  ToolDispatchContext,
  ToolEffect,
  ToolFacts,
  ToolPolicyClass,
  ToolResultView,
  ToolRisk,
  ToolSchema,
  ToolSource,
} from './tools/tool-types.js';

export { compilerOfDraft, draftOf, type JsonSchemaDraft } from './tools/schema-validator.js';
export { checkSchemaSize } from './tools/check-schema-size.js';
export { schemaCheckCost, UnresolvedReferenceError } from './tools/schema-check-cost.js';

export { mcpToolName } from './names/mcp-tool-name.js';
export { wireToolName } from './names/wire-tool-name.js';
export { translateToolNames, type ToolNameDiagnostic, type TranslateToolNamesOptions } from './names/translate-tool-names.js';

export { createToolRegistry } from './registry/create-tool-registry.js';
export type {
  CreateToolRegistryOptions,
  PresentationMode,
  RegistryLimits,
  ScopeOptions,
  ScopeRestriction,
  ToolInfo,
  ToolRegistry,
} from './registry/registry-types.js';

export type { DispatchContext, FieldMapping, ToolCall, ToolCallConfig, ToolFailure, ToolOutcome, ToolSuccess } from './dispatch/dispatch-types.js';
export { withAttachments } from './dispatch/split-attachments.js';
export { isCutViewBody, MAX_VIEW_BODY } from './dispatch/request-approval.js';
export type { InvocationPlan } from './plan/plan-types.js';

export type {
  AroundWrapper,
  DispatchNext,
  PostExecuteDecision,
  PostExecuteHook,
  PostExecuteState,
  PreExecuteDecision,
  PreExecuteHook,
  ToolDispatchExecution,
  ToolExecution,
  ToolGuard,
  ToolHooks,
} from './hooks/hook-types.js';
export { timeout } from './hooks/timeout.js';
export { retry, type RetryOptions } from './hooks/retry.js';
export { metrics, type MetricsSample } from './hooks/metrics.js';

export type {
  DirectoryEntry,
  EgressCapability,
  EgressRequest,
  EgressResponse,
  FileEdit,
  FileRead,
  FileWrite,
  FsCapability,
  HostCallLabel,
  McpCallInput,
  McpCapability,
  MediaHandle,
  MediaStore,
  MovedProtectedPath,
  MovedRepository,
  OsCapability,
  ProcessCapability,
  ProcessResult,
  ResolvedTarget,
  ResolveTargetRequest,
  SecretsCapability,
  SpawnOptions,
  SpilledResult,
  ToolHost,
  ToolHostCallOptions,
  ToolHostCapability,
  ToolOutputStore,
  ToolResultLimits,
} from './host/tool-host.js';
export { requireCapability } from './host/require-capability.js';
export { isPlainMediaType, mediaDigestOf, recordableAttachment, sameAttachments } from './host/media-handle.js';
export { readStoredMedia, type StoredMedia, type StoredMediaProblem } from './host/read-stored-media.js';

export type { ArgumentPolicyInput, IdentityPolicyInput, MatchedRule, PathPlacement, PolicyDecision, PolicyToolView, ToolPolicy } from './policy/policy-types.js';
// The resolved action: what a call will do, once, for policy, approver, digest, receipt and host.
export type {
  ObjectStoreContent,
  ResolvedAction,
  ResolvedCommand,
  ResolvedHttp,
  ResolvedMcp,
  ResolvedOsAction,
  ResolvedPath,
  ResolvedPathFlag,
  ResolvedQueryParameter,
  ResolvedSearch,
  WorkspaceMembers,
} from './action/resolved-action.js';
export type { ActionDisplay, DisplayedPath } from './action/display-action.js';
export { showUnprintable, UNPRINTABLE_BUT_LINES } from './action/display-action.js';
export { describeApproval } from './action/describe-approval.js';
export { shortSessionId } from './policy/short-session-id.js';
export { npmCommandsAt } from './policy/npm-command-readings.js';
export { MAX_RUNNER_FILES } from './policy/runner-code.js';
export type {
  ApprovalScope,
  ApprovalSession,
  ConfirmActionHook,
  ToolActionClass,
  ToolActionPreview,
  ToolApprovalContext,
  ToolApprovalDecision,
  ToolApprovalRequest,
  ApprovalReasons,
} from './policy/approval-types.js';
export { REDACTED, redactSecrets, type RedactedText } from './policy/redact-secrets.js';
// Policy engine: declarative rules within the guardrail floor, live narrowing, approval modes, importers.
export { createPolicy } from './policy/create-policy.js';
export type { ApprovalMode, CreatePolicyOptions, ExplainCall, ExplainedRule, RuleInForce, FsScope, ManagedSwitches, PolicyExplanation, PolicySnapshot } from './policy/policy-snapshot-types.js';
export type { FsScopeTier } from './policy/check-guardrails.js';
export type { PolicyRule, PolicyRuleObject, PolicyRuleString, RuleDecision, RuleExample, RuleMatch, RuleSource } from './policy/rule-types.js';
export { PolicyRuleError, type PolicyRuleProblem } from './policy/policy-rule-error.js';
export { createLivePolicy, type LivePolicy, type ReplaceResult } from './policy/create-live-policy.js';
export {
  createConfirm,
  type ApprovalClassifier,
  type ApprovalController,
  type ClassifierVerdict,
  type CreateConfirmOptions,
  type PersistRule,
  type PromptContext,
  type PromptHook,
  type RememberedApproval,
} from './policy/create-confirm.js';
export { importClaudeSettings, type ClaudeSettingsFile, type ClaudeSettingsScope, type ImportedPolicy } from './policy/import-claude-settings.js';
export { parseSettingsJson } from './policy/parse-settings-json.js';
export { importGeminiPolicies, type GeminiPolicyFile, type GeminiPolicyTier, type ImportedGeminiPolicy } from './policy/import-gemini-policies.js';
export { findShellOperator } from './policy/find-shell-operator.js';
export { DEFAULT_PROTECTED_PATHS, literalPathGlob } from './policy/protected-paths.js';
export type { RateLimit, RateLimits } from './policy/rate-limiter.js';

export type {
  ClaimResolution,
  Journal,
  JournalClaim,
  JournalEvent,
  JournalPrepareInput,
  JournalPrepareResult,
  JournalSettleInput,
  JournalVerifyResult,
  RecordedResult,
  RecordingQuery,
  UnresolvedClaim,
} from './journal/journal-types.js';
export { createReplayHost, type ReplayHostOptions, type ReplaySession, type ReplayStats } from './journal/create-replay-host.js';
export { createScriptedTools, type ScriptedAnswer, type ScriptedCall, type ScriptedTools, type ToolScript } from './journal/create-scripted-tools.js';

export { boundText, type BoundedText } from './bounding/bound-text.js';
export { exceedsJsonTextBytes, jsonTextBytesWithin } from './bounding/exceeds-json-text-bytes.js';
export { renderedValueJson } from './dispatch/settle-call.js';
export {
  Untrusted,
  instruction,
  isUntrusted,
  markUntrusted,
  placeToolResult,
  placeUserContent,
  systemMessage,
  unwrapUntrusted,
  type SystemMessage,
  type ToolResultPlacement,
  type TrustedText,
  type UserContentPlacement,
} from './untrusted/untrusted.js';

export type { ToolgateEvent, ToolgateEventMap, ToolgateEventName, ToolgateListener } from './events/event-types.js';
export type { ApprovalTier, ReceiptApproval, ReceiptPolicy, ReceiptStatus, ToolReceipt } from './receipts/receipt-types.js';
export { type ProjectArgumentsOptions } from './receipts/project-arguments.js';
export { canonicalJson } from './digest/canonical-json.js';
export { sha256Hex, type Sha256Text } from './digest/sha256.js';
export { type InvocationDigests } from './digest/invocation-digests.js';

export type {
  AnthropicTool,
  GeminiFunctionDeclaration,
  GeminiSchema,
  GeminiType,
  McpTool,
  McpToolAnnotations,
  ObjectJsonSchema,
  OpenAIChatTool,
  OpenAIResponsesTool,
  ProjectOptions,
  ProviderName,
  ProviderToolMap,
  ProviderTools,
} from './projection/projection-types.js';

export { ToolgateError, type ToolgateErrorCode, type ToolgateErrorOptions } from './errors/toolgate-error.js';
export {
  ConfigurationError,
  DuplicateToolError,
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
  UnknownToolError,
  type ReplayMediaProblem,
  type ToolDeniedByUserReason,
  type ToolPolicyDenyReason,
  type ToolPolicyErrorOptions,
} from './errors/tool-errors.js';
export type { ValidationIssue } from './errors/describe-issues.js';

// Code Mode: the reserved run_code transport's runtime seam, its errors and results,
// the generated tools SDK and the prompt assembly.
export { CodeModeCancelledError, CodeModeError, type CodeModeFailure } from './code-mode/code-mode-error.js';
export { DEFAULT_MAX_CONCURRENT_CALLS, DEFAULT_MAX_DELIVERED_BYTES, MAX_NESTED_CALLS, MAX_SCRIPT_ARGUMENT_BYTES, type RunCodeArguments, type RunCodeResult, type RunCodeSummary } from './code-mode/create-run-code-tool.js';
export { assembleToolPrompt, type AssembleToolPromptOptions, type PromptSection, type ToolPromptAssembly } from './code-mode/assemble-tool-prompt.js';
export { type SdkRenderer } from './code-mode/render-tool-sdk.js';
export type {
  CodeConsoleOutput,
  CodeRunFailure,
  CodeRunRequest,
  CodeRunResult,
  CodeRuntime,
  CodeToolErrorView,
  CodeToolReply,
} from './code-mode/code-mode-types.js';

export { runToolCalls, type RunToolCallsOptions, type ToolCallResult, type ToolStepResult } from './agent/run-tool-calls.js';
