import { anchorPathFor, createJournalAudit, readJournalAnchor, type JournalAudit } from '../../journal/sqlite/index.js';
import { startConsole, type AuditSource, type ConsoleServer, type PolicyDescription } from '../../console/index.js';
import type { MatchedRule, PolicyExplanation, ToolReceipt } from '../../core/internal.js';
import type { Gateway } from './open-gateway.js';
import { rememberedBySession } from '../../console/remembered-by-session.js';

/** The console of `toolgate serve`, and the journal audit it reads receipts through. */
export interface ServeConsole {
  readonly server: ConsoleServer;
  readonly audit: JournalAudit;
}

/**
 * Start the web console of a gateway: its approvals, its journal (read
 * through an audit of its own), its policy, the claims a crash left open and
 * the withheld MCP definitions a person may approve. `runId` is the run this
 * gateway journals its calls under.
 */
export async function startServeConsole(gateway: Gateway, runId: string): Promise<ServeConsole> {
  const { config } = gateway;
  const audit = createJournalAudit(config.journal.path);
  try {
    const server = await startConsole({
      registry: gateway.registry(),
      approvals: gateway.approvals,
      audit: auditSource(gateway, audit, runId),
      media: gateway.host.mediaStore,
      describePolicy: () => describePolicy(gateway),
      unresolved: () => gateway.journal.unresolved(),
      withheld: {
        list: () => Promise.resolve(gateway.connection.listWithheld()),
        approve: (name, digest) => gateway.connection.approvePin(name, { by: 'console', digest }),
      },
      port: config.console.port,
    });
    return { server, audit };
  } catch (error) {
    audit.close();
    throw error;
  }
}

function auditSource(gateway: Gateway, audit: JournalAudit, runId: string): AuditSource {
  return {
    list: ({ before, ...filter }) => {
      // The receipts of calls that have returned, batched or not.
      gateway.journal.flush();
      return Promise.resolve(
        audit.list({ ...filter, ...(before === undefined ? {} : { beforeSeq: before }) }).map((entry) => ({ ...entry.receipt, position: entry.chain.position, ...(entry.runId === undefined ? {} : { runId: entry.runId }) })),
      );
    },
    get: (invocationId) => {
      gateway.journal.flush();
      const entry = audit.get(invocationId);
      if (entry === undefined) return Promise.resolve(undefined);
      const receipt = entry.receipt;
      return Promise.resolve({ receipt, chain: { position: entry.chain.position, hash: entry.chain.hash }, explanation: explainReceipt(gateway, receipt, entry.runId === runId) });
    },
    // Only what a receipt in this gateway's journal lists is the console's to show.
    attachment: (handle) => {
      gateway.journal.flush();
      return Promise.resolve(audit.attachment(handle));
    },
    // Against the anchor the gateway keeps, so the console's chain status also shows a cut tail or a replaced file.
    verify: () => {
      const anchor = readJournalAnchor(anchorPathFor(gateway.config.journal.path));
      return anchor === undefined ? gateway.journal.verify() : gateway.journal.verify({ anchor });
    },
  };
}

/**
 * The decision trace a receipt's detail shows. The policy's step-by-step
 * account is worked out again now, so it is shown only while it can be the
 * account of that decision: a receipt of this run, decided by the snapshot
 * still in force, that the account decides as the receipt recorded. Any
 * other receipt (an earlier start, whose configuration may have denied what
 * today's allows; a snapshot since replaced; arguments the receipt keeps
 * masked, which match other rules) shows the rules it recorded: the trace
 * under a receipt denied by `Write(notes.md)` read "decides: rule
 * Write(notes.md) → allow" once a later start allowed it.
 */
function explainReceipt(gateway: Gateway, receipt: ToolReceipt, thisRun: boolean): PolicyExplanation | readonly MatchedRule[] {
  const snapshot = gateway.policy.current;
  if (!thisRun || receipt.policy.version !== snapshot.version) return receipt.policy.rules;
  try {
    const registry = gateway.registry();
    const target = registry.get(receipt.tool)?.policyTarget?.(receipt.arguments);
    // The tool's own policy view, so the explanation knows a write from a read.
    const tool = registry.list().find((info) => info.name === receipt.tool && info.version === receipt.version)?.policyView ?? receipt.tool;
    const explanation = snapshot.explain({ tool, args: receipt.arguments, ...(target === undefined ? {} : { target }) });
    const recorded = new Set(receipt.policy.rules.map((rule) => rule.id));
    const agrees = explanation.decision.kind === receipt.policy.decision && explanation.rules.every((rule) => recorded.has(rule.id));
    return agrees ? explanation : receipt.policy.rules;
  } catch {
    return receipt.policy.rules;
  }
}

function describePolicy(gateway: Gateway): PolicyDescription {
  const { config } = gateway;
  const snapshot = gateway.policy.current;
  return {
    version: snapshot.version,
    mode: gateway.controller.mode,
    scope: config.scope,
    workspace: config.workspace,
    // What the policy holds: the config's allow, ask, deny and rules, the imported files, the remembered approvals.
    rules: snapshot.rules,
    allowedCommands: config.policy.allowedCommands ?? [],
    allowedCommandGlobs: config.policy.allowedCommandGlobs ?? [],
    allowedDomains: config.policy.allowedDomains ?? [],
    protectedPaths: config.policy.protectedPaths ?? [],
    mcpServers: Object.keys(config.servers),
    // Each upstream's status (up, down, retrying), its last failure and next retry: the console shows it beside the chain.
    servers: gateway.connection.servers(),
    remembered: rememberedBySession(gateway.controller.remembered()),
    warnings: snapshot.warnings,
  };
}
