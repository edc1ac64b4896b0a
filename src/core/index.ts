// The engine: definitions, registry, dispatch, policy seam, approval, bounding,
// untrusted mark, events, errors, receipts and provider projection.
// Every export is named: adding one here is an API decision.

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
export { BOUNDED_SCHEMA_LIMITS, checkBoundedSchema } from './tools/check-bounded-schema.js';

export { createToolRegistry } from './registry/create-tool-registry.js';
export { CODE_MODE_TOOL_NAME } from './registry/registry-state.js';
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
  OsCapability,
  ProcessCapability,
  ProcessResult,
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

export type { ArgumentPolicyInput, IdentityPolicyInput, MatchedRule, PolicyDecision, PolicyToolView, ToolPolicy } from './policy/policy-types.js';
export type {
  ApprovalScope,
  ConfirmActionHook,
  ToolActionClass,
  ToolActionPreview,
  ToolApprovalContext,
  ToolApprovalDecision,
  ToolApprovalRequest,
} from './policy/approval-types.js';
export { guardrailFloor } from './policy/guardrail-floor.js';
export { REDACTED, redactSecrets } from './policy/redact-secrets.js';

export type {
  Journal,
  JournalClaim,
  JournalEvent,
  JournalPrepareInput,
  JournalPrepareResult,
  JournalSettleInput,
  JournalVerifyResult,
  RecordedResult,
  UnresolvedClaim,
} from './journal/journal-types.js';

export { DEFAULT_TOOL_RESULT_LIMITS, boundText, type BoundedText } from './bounding/bound-text.js';
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
export { projectArguments, type ProjectArgumentsOptions } from './receipts/project-arguments.js';
export { canonicalJson } from './digest/canonical-json.js';
export { sha256Hex } from './digest/sha256.js';
export { ACTION_DIGEST_SCHEMA, computeInvocationDigests, type InvocationDigests } from './digest/invocation-digests.js';

export type {
  AnthropicTool,
  GeminiFunctionDeclaration,
  McpTool,
  McpToolAnnotations,
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
  ToolCancelledError,
  ToolDefinitionError,
  ToolDeniedByUserError,
  ToolExecutionError,
  ToolOutputInvalidError,
  ToolPolicyError,
  ToolTimeoutError,
  ToolUnavailableError,
  UnknownToolError,
  type ToolDeniedByUserReason,
  type ToolPolicyDenyReason,
  type ToolPolicyErrorOptions,
} from './errors/tool-errors.js';
export type { ValidationIssue } from './errors/describe-issues.js';

export { runToolCalls, type RunToolCallsOptions, type ToolCallResult, type ToolStepResult } from './agent/run-tool-calls.js';
