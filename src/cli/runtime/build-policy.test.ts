import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ToolPolicyError, type ConfirmActionHook } from '../../core/index.js';
import { loadConfig } from '../config/load-config.js';
import { buildPolicy } from './build-policy.js';
import { openGateway } from './open-gateway.js';

function workspaceWith(config: unknown): string {
  const workspace = mkdtempSync(join(tmpdir(), 'toolgate-build-policy-'));
  writeFileSync(join(workspace, 'toolgate.config.json'), JSON.stringify(config));
  return workspace;
}

const denyEcho = (mode: string) => ({
  mode,
  servers: { up: { command: 'node', args: ['upstream.mjs'] } },
  policy: { allow: ['mcp__up', 'mcp_call(server:up)'], deny: ['mcp__up__echo'] },
});

describe('buildPolicy: mcp_call answers to the rules of the upstream tool it calls', () => {
  it.each(['auto', 'ask'])('a deny on mcp__up__echo refuses mcp_call up/echo in %s mode, with no approval asked', async (mode) => {
    const prompts: string[] = [];
    const prompt: ConfirmActionHook = (request) => {
      prompts.push(request.toolName);
      return Promise.resolve({ outcome: 'approve' });
    };
    const gateway = await openGateway(loadConfig(workspaceWith(denyEcho(mode))), { prompt, connectServers: false });
    try {
      for (const tool of ['echo', 'ECHO', 'ｅｃｈｏ']) {
        const outcome = await gateway.registry().dispatch({ callId: `c-${tool}`, name: 'mcp_call', arguments: { server: 'up', tool, arguments: { text: 'denied tool ran' } } }, gateway.context);
        expect(outcome.ok, tool).toBe(false);
        if (!outcome.ok) {
          expect(outcome.error.code).toBe('POLICY_DENIED');
          expect((outcome.error as ToolPolicyError).reason).toBe('rule_denied');
        }
      }
      expect(prompts).toEqual([]);
      // Another tool of the same server is not denied: in ask mode it reaches the prompt.
      await gateway.registry().dispatch({ callId: 'other', name: 'mcp_call', arguments: { server: 'up', tool: 'other' } }, gateway.context);
      expect(prompts).toEqual(mode === 'ask' ? ['mcp_call'] : []);
    } finally {
      await gateway.close();
    }
  });

  it('policy explain shows the deny on the target', async () => {
    const built = await buildPolicy(loadConfig(workspaceWith(denyEcho('auto'))));
    const explanation = built.snapshot.explain({ tool: 'mcp_call', target: { server: 'up' }, args: { server: 'up', tool: 'echo' } });
    expect(explanation.decision).toMatchObject({ kind: 'deny', reason: 'rule_denied' });
    expect(explanation.rules.find((rule) => rule.winner)?.rule).toBe('mcp__up__echo');
  });
});
