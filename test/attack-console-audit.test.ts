import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { describeDecision } from '../src/console/describe-decision.js';
import { decide, pendingApproval } from './support/pending-approval.js';
import { closeAfterEach, connectClient, serveGateway, serveWorkspace, type ServedGateway } from './support/serve-gateway.js';

/*
 * A receipt's detail in the console shows a "decision trace". It was worked
 * out again, at the moment the receipt is opened, from the policy in force
 * then: after a restart with another configuration, the trace under a
 * receipt named a rule that did not decide that call, and a decision it did
 * not get.
 */

const opened = closeAfterEach();

interface Detail {
  readonly receipt: { readonly invocationId: string; readonly policy: { readonly decision: string; readonly rules: readonly { readonly id: string }[] } };
  readonly explanation: readonly unknown[] | { readonly decision: { readonly kind: string }; readonly rules: readonly { readonly id: string; readonly decision: string; readonly winner: boolean }[] };
}

async function receiptOf(gateway: ServedGateway, tool: string): Promise<Detail> {
  const list = (await gateway.api(`/api/receipts?tool=${tool}`)).body as { invocationId: string }[];
  expect(list).toHaveLength(1);
  return (await gateway.api(`/api/receipts/${encodeURIComponent(list[0]?.invocationId ?? '')}`)).body as Detail;
}

/** The trace says what the receipt recorded: the recorded rules, or an account with the recorded decision whose every rule is one the receipt recorded. */
function expectHonestTrace(detail: Detail, decision: string): void {
  expect(detail.receipt.policy.decision).toBe(decision);
  const explanation = detail.explanation;
  if (Array.isArray(explanation)) expect(explanation).toEqual(detail.receipt.policy.rules);
  else {
    const account = explanation as Exclude<Detail['explanation'], readonly unknown[]>;
    expect(account.decision.kind).toBe(decision);
    const recorded = detail.receipt.policy.rules.map((rule) => rule.id);
    for (const rule of account.rules) expect(recorded).toContain(rule.id);
  }
}

describe('attack: the decision trace of a receipt is the policy of today', () => {
  it('a write the configuration denied does not read as allowed by the rule a later start brought', async () => {
    const first = opened.gateway(await serveGateway({ scope: 'workspace-write', mode: 'auto', policy: { deny: ['Write(notes.md)'] } }));
    const client = opened.client((await connectClient(first.mcpUrl, 'agent', undefined, first.auth)).client);
    const result = await client.callTool({ name: 'write_file', arguments: { path: 'notes.md', content: 'x\n' } });
    expect(JSON.stringify(result.content)).toContain('refused by policy rule');
    expectHonestTrace(await receiptOf(first, 'write_file'), 'deny');
    await client.close();
    await first.cli.stop();

    writeFileSync(join(first.workspace, 'toolgate.config.json'), JSON.stringify({ scope: 'workspace-write', mode: 'auto', policy: { allow: ['Write(notes.md)'] } }));
    const second = opened.gateway(await serveWorkspace(first.workspace));
    expectHonestTrace(await receiptOf(second, 'write_file'), 'deny');
  });
});

describe('attack: a rejection nobody gave reads as a person\'s', () => {
  // `rejected when asked` stood for every rejection: plan mode's, an approval that expired with nobody there, a
  // gateway with nobody to ask. The receipt kept only `confirm` for any of them, so the audit said a person refused.
  const call = async (config: object): Promise<{ gateway: ServedGateway; decision: string }> => {
    const gateway = opened.gateway(await serveGateway(config));
    const client = opened.client((await connectClient(gateway.mcpUrl, 'agent', undefined, gateway.auth)).client);
    await client.callTool({ name: 'write_file', arguments: { path: 'notes.md', content: 'x\n' } });
    const receipt = (await receiptOf(gateway, 'write_file')).receipt;
    return { gateway, decision: describeDecision(receipt as unknown as Parameters<typeof describeDecision>[0]) };
  };

  it('plan mode, and an approval that expired, say so; a person\'s rejection in the console says it was asked', async () => {
    expect((await call({ scope: 'workspace-write', mode: 'plan' })).decision).toBe('rejected by mode plan');
    expect((await call({ scope: 'workspace-write', mode: 'ask', approvals: { timeoutSeconds: 1 } })).decision).toBe('rejected: nobody decided in time, or the approval queue was full');

    const gateway = opened.gateway(await serveGateway({ scope: 'workspace-write', mode: 'ask' }));
    const client = opened.client((await connectClient(gateway.mcpUrl, 'agent', undefined, gateway.auth)).client);
    const pending = client.callTool({ name: 'write_file', arguments: { path: 'notes.md', content: 'x\n' } });
    await decide(gateway, (await pendingApproval(gateway, 'write_file')).id, 'reject');
    await pending;
    expect(describeDecision((await receiptOf(gateway, 'write_file')).receipt as unknown as Parameters<typeof describeDecision>[0])).toBe('rejected when asked, by the console');
  });
});
