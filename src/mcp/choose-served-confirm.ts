import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { ApprovalController, ConfirmActionHook } from '../core/internal.js';
import { elicitApproval, type CallExtra } from './elicit-approval.js';

/**
 * The approval controller a gateway serves with (`createConfirm`'s): its mode
 * logic decides, whoever is asked. Its `forgetSession`, when it has one, is
 * called as each MCP session ends, so that session's approvals go with it.
 */
export type ApprovalChannels = Pick<ApprovalController, 'confirm' | 'confirmWith' | 'prompt'> & Partial<Pick<ApprovalController, 'forgetSession'>>;

/** Which MCP clients are asked, through elicitation, to show an approval to their user. */
export interface ElicitationTrust {
  /**
   * The `clientInfo.name` of each trusted client, or `"*"` for every one.
   * The name is whatever the client declares: this says which client
   * applications put the question before a person, it authenticates nothing.
   */
  readonly trustedClients: readonly string[];
}

/** How the calls of one MCP session are approved. */
export interface ServedApprovals {
  readonly controller: ApprovalChannels | undefined;
  /** A plain hook, used as is when there is no controller; elicitation is never used with it. */
  readonly approver: ConfirmActionHook | undefined;
  readonly elicitation: ElicitationTrust | undefined;
}

/**
 * The confirm hook of one served call. Elicitation is only ever a way of
 * asking a person, behind the controller's mode logic: it is used when the
 * client declares the capability and is trusted by name, for an approval
 * short enough to show there whole (the controller's prompt is asked
 * the others). A plain approver
 * cannot be wrapped, so with one the client is never asked. Undefined: the
 * pipeline denies the call (`no_approval_hook`).
 */
export function chooseServedConfirm(approvals: ServedApprovals, server: Server, extra: CallExtra): ConfirmActionHook | undefined {
  const { controller } = approvals;
  if (controller === undefined) return approvals.approver;
  return trustsElicitation(approvals.elicitation, server) ? controller.confirmWith(elicitApproval(extra, controller.prompt)) : controller.confirm;
}

function trustsElicitation(trust: ElicitationTrust | undefined, server: Server): boolean {
  if (trust === undefined || server.getClientCapabilities()?.elicitation === undefined) return false;
  const name = server.getClientVersion()?.name;
  return trust.trustedClients.includes('*') || (name !== undefined && trust.trustedClients.includes(name));
}
