import { ConfigurationError } from '../errors/tool-errors.js';
import type { ApprovalScope, ApprovalSession, ConfirmActionHook, ToolApprovalDecision, ToolApprovalRequest } from './approval-types.js';
import type { LivePolicy } from './create-live-policy.js';
import { APPROVAL_MODES, decideApprovalMode, type ApprovalModeInput } from './decide-approval-mode.js';
import { normalizePath } from './normalize-path.js';
import type { ApprovalMode, PolicySnapshot } from './policy-snapshot-types.js';
import type { MatchedRule } from './policy-types.js';
import { createProtectedPathMatcher } from './protected-paths.js';
import { rememberKey } from './remember-key.js';
import type { PolicyRuleObject } from './rule-types.js';

/** What the prompt is told besides the request. */
export interface PromptContext {
  readonly mode: ApprovalMode;
  /** Why the call reached a human: `governed`, `protected_path`, `rule`, `risk`, `classifier`. */
  readonly reason: string;
  readonly protectedPath: boolean;
}

export type PromptHook = (request: ToolApprovalRequest, context: PromptContext, signal?: AbortSignal) => Promise<ToolApprovalDecision>;
export type ClassifierVerdict = 'approve' | 'ask' | 'reject';
/** Auto mode's optional classifier for calls no rule allows. */
export type ApprovalClassifier = (request: ToolApprovalRequest, signal?: AbortSignal) => ClassifierVerdict | Promise<ClassifierVerdict>;
/** Persist an `always` approval as a rule (the Node host writes the project or user policy file). */
export type PersistRule = (rule: PolicyRuleObject) => Promise<void>;

export interface CreateConfirmOptions {
  /** Default: the policy's mode, else `ask`. */
  readonly mode?: ApprovalMode;
  /** The human: a terminal prompt, a console card. `confirmWith` puts another in its place for a call. */
  readonly prompt: PromptHook;
  /** The live policy (re-checks pending approvals) or a snapshot (protected paths, workspace, switches). */
  readonly policy?: LivePolicy | PolicySnapshot;
  readonly classifier?: ApprovalClassifier;
  /** Where `always` approvals go; without it `always` is remembered for the session only. */
  readonly remember?: {
    readonly persist: PersistRule;
    readonly source?: 'project' | 'user';
    /**
     * Whether a matched allow rule is one `persist` wrote (an earlier
     * `always`): a call it allows is approved without asking, as a
     * remembered approval, never on a protected path.
     */
    readonly persisted?: (rule: MatchedRule) => boolean;
  };
}

/**
 * A remembered approval, bound to the session that asked, the tool, the
 * agent and the whole target the approver was shown: a later call is
 * approved by it only if all of them are equal.
 */
export interface RememberedApproval {
  /**
   * The session it was given in (`request.session`; undefined: the caller
   * named none). A call of another session is asked again, and the session's
   * end (`forgetSession`) drops it.
   */
  readonly session: ApprovalSession | undefined;
  readonly tool: string;
  /** The agent it was given to (undefined: none named). Another agent is asked again. */
  readonly agent: string | undefined;
  /**
   * - `argv`: `value` is the JSON argv, exactly as it runs; `also` holds the working directory's real path, the executable
   *   and, where the host resolved them, the JSON list of where its argument paths really lead;
   * - `path`: `value` is the real path (or the JSON list of real paths);
   * - `http`: `value` is the JSON `[method, origin, path]`; `also.digest` the action digest standing for the whole request;
   * - `mcp`: `value` is the JSON `[server, tool]`; `also.digest` the action digest standing for the arguments;
   * - `digest`: `value` is the action digest, for a call whose target is its data
   *   (a search's query, an OS action's text): only the identical input, from
   *   the same agent, is approved again.
   */
  readonly kind: 'argv' | 'path' | 'http' | 'mcp' | 'digest';
  readonly value: string;
  /** The rest of the target beside it, which must be equal too. */
  readonly also?: { readonly path?: string; readonly executable?: string; readonly arguments?: string; readonly digest?: string };
  readonly scope: ApprovalScope;
  readonly mode: ApprovalMode;
}

export interface ApprovalController {
  /** The hook to put on `context.approval.confirm`: the mode logic, then `prompt`. */
  readonly confirm: ConfirmActionHook;
  /**
   * The person it was made with (`options.prompt`): asked by another
   * channel in its place for what that channel cannot show whole (an MCP
   * client's elicitation, for an approval too long for it). A prompt, not a
   * decision: call it only where the mode logic already left the call to a person.
   */
  readonly prompt: PromptHook;
  /**
   * The same decision — mode, live-policy re-check, protected paths,
   * remembered approvals, persistence — with another person behind it:
   * `prompt` is asked only what the mode logic leaves to a person, exactly
   * where `options.prompt` would have been. A channel such as an MCP
   * client's elicitation is used through this, so its answer can never
   * override the mode.
   */
  confirmWith(prompt: PromptHook): ConfirmActionHook;
  readonly mode: ApprovalMode;
  setMode(mode: ApprovalMode): void;
  /** Every approval remembered now, of every session. */
  remembered(): readonly RememberedApproval[];
  forget(): void;
  /** Drop what was remembered for the session with this id (`ApprovalSession.id`): the session ended. */
  forgetSession(session: string): void;
}

/**
 * The confirm hook toolgate ships: approval modes, remembered approvals and
 * protected paths live here, so the engine stays mode-agnostic.
 * - `ask`: every governed call reaches the prompt.
 * - `plan`: nothing runs; the rejection says it is plan mode.
 * - `accept-edits`: writes inside the workspace are approved, protected paths excepted.
 * - `auto`: what the rules allow is approved; otherwise the classifier, else the prompt.
 * Protected paths always reach the prompt and are never remembered. With a
 * live policy, a pending approval is re-checked before and after the prompt.
 * The prompt is only a way of asking a person: it never decides before the mode.
 */
export function createConfirm(options: CreateConfirmOptions): ApprovalController {
  if (typeof options.prompt !== 'function') throw new ConfigurationError('prompt', 'must be a function');
  const snapshotOf = (): PolicySnapshot | undefined => (options.policy === undefined ? undefined : 'current' in options.policy ? options.policy.current : options.policy);
  const live = options.policy !== undefined && 'decisionFor' in options.policy ? options.policy : undefined;
  let mode = checkMode(options.mode ?? snapshotOf()?.mode ?? 'ask');
  // By session first (undefined: calls that name none), then by the action key: one session's approval is never
  // found for another, and a session's end drops its approvals at once.
  const memory = new Map<string | undefined, Map<string, RememberedApproval>>();

  const effectiveMode = (): ApprovalMode => (mode === 'auto' && snapshotOf()?.managed.disableAutoMode === true ? 'ask' : mode);
  const { isProtected, insideWorkspace } = pathChecks(snapshotOf);

  const persisted = options.remember?.persisted;
  const decide = async (request: ToolApprovalRequest, prompt: PromptHook, signal: AbortSignal | undefined): Promise<ToolApprovalDecision> => {
    const current = effectiveMode();
    const before = live?.decisionFor(request) ?? request.decision;
    const key = rememberKey(request);
    const verdict = decideApprovalMode({
      mode: current,
      decision: before,
      request,
      remembered: key === undefined ? undefined : memory.get(request.session?.id)?.get(key.id),
      persisted,
      classifier: options.classifier !== undefined,
      isProtected,
      insideWorkspace,
    });
    if (verdict.kind === 'approve') return { outcome: 'approve', by: verdict.by, ...(verdict.scope === undefined ? {} : { scope: verdict.scope }) };
    if (verdict.kind === 'reject') return { outcome: 'reject', reason: verdict.reason, by: verdict.by };
    if (verdict.kind === 'classify') {
      const classified = await options.classifier?.(request, signal);
      if (classified === 'approve') return { outcome: 'approve', by: 'classifier' };
      if (classified === 'reject') return { outcome: 'reject', reason: 'refused by the auto-mode classifier', by: 'classifier' };
    }
    const { reason, protectedPath } = verdict.kind === 'ask' ? verdict : { reason: 'classifier', protectedPath: false };
    // The person sees why the call reached them: the mode and the reason the logic above settled on.
    const shown: ToolApprovalRequest = Object.freeze({ ...request, reasons: Object.freeze({ ...request.reasons, reason, mode: current, protectedPath }) });
    const answer = await prompt(shown, { mode: current, reason, protectedPath }, signal);
    const after = live?.decisionFor(request);
    if (after?.kind === 'deny') return { outcome: 'reject', reason: 'the policy changed while the approval was pending', by: 'policy' };
    if (answer?.outcome !== 'approve') return answer?.outcome === 'reject' ? answer : { outcome: 'reject', reason: 'the prompt gave no decision' };
    const scope = answer.scope ?? 'once';
    if (scope !== 'once' && !protectedPath && key !== undefined && before.kind === 'allow') {
      // A call whose caller has gone (its session closing) is not remembered: that session's approvals may be dropped already.
      if (signal?.aborted !== true) {
        const session = request.session;
        let remembered = memory.get(session?.id);
        if (remembered === undefined) memory.set(session?.id, (remembered = new Map<string, RememberedApproval>()));
        remembered.set(key.id, { session, ...key.entry, scope, mode: current });
      }
      // Persisted only where a rule can say exactly what is remembered; otherwise `always` lasts as long as the session that asked.
      if (scope === 'always' && options.remember !== undefined && key.rule !== undefined) {
        await options.remember.persist({ ...key.rule, decision: 'allow', source: options.remember.source ?? 'project', reason: 'remembered approval' });
      }
    }
    return answer;
  };

  const confirmWith = (prompt: PromptHook): ConfirmActionHook => {
    if (typeof prompt !== 'function') throw new ConfigurationError('prompt', 'must be a function');
    return async (request, signal) => {
      try {
        return await decide(request, prompt, signal);
      } finally {
        live?.settle(request);
      }
    };
  };

  const controller: ApprovalController = {
    confirm: confirmWith(options.prompt),
    confirmWith,
    prompt: options.prompt,
    get mode() {
      return effectiveMode();
    },
    setMode(next) {
      mode = checkMode(next);
    },
    remembered: () => Object.freeze([...memory.values()].flatMap((remembered) => [...remembered.values()])),
    forget: () => memory.clear(),
    forgetSession: (session) => {
      memory.delete(session);
    },
  };
  controllers.set(controller.confirm, controller);
  return controller;
}

const controllers = new WeakMap<ConfirmActionHook, ApprovalController>();

/**
 * The controller whose `confirm` a hook is, if any. A framework's own
 * approval flow (the AI SDK's, the Agents SDK's) is one more way of asking a
 * person: an adapter that finds the application's controller puts that
 * answer behind the controller's mode logic (`confirmWith`) instead of
 * pre-approving the digest, so plan mode still runs nothing.
 */
export function controllerOf(hook: ConfirmActionHook | undefined): ApprovalController | undefined {
  return hook === undefined ? undefined : controllers.get(hook);
}

function checkMode(mode: ApprovalMode): ApprovalMode {
  if (!APPROVAL_MODES.includes(mode)) throw new ConfigurationError('mode', 'must be ask, plan, accept-edits or auto');
  return mode;
}

/**
 * Whether a path is protected or inside the workspace, by the current policy
 * snapshot; without one, by the default protected paths and the spelling alone.
 */
function pathChecks(snapshotOf: () => PolicySnapshot | undefined): Pick<ApprovalModeInput, 'isProtected' | 'insideWorkspace'> {
  const fallbackProtected = createProtectedPathMatcher();
  return {
    isProtected(path) {
      const snapshot = snapshotOf();
      if (snapshot !== undefined) return snapshot.isProtectedPath(path);
      const normal = normalizePath(path);
      return normal === undefined || fallbackProtected(normal);
    },
    insideWorkspace(path) {
      const snapshot = snapshotOf();
      if (snapshot !== undefined) return snapshot.isInsideWorkspace(path);
      const normal = normalizePath(path);
      return normal !== undefined && normal.relative !== undefined;
    },
  };
}
