import { describe, expect, test } from 'vitest';
import type { ResolvedPath } from '../action/resolved-action.js';
import { approvalRequest } from './__fixtures__/approval-request.js';
import type { ToolActionClass } from './approval-types.js';
import { decideApprovalMode, type ApprovalModeInput, type ApprovalModeVerdict } from './decide-approval-mode.js';
import type { ApprovalMode } from './policy-snapshot-types.js';
import type { MatchedRule, PolicyDecision } from './policy-types.js';

const allowRule: MatchedRule = { id: 'r1', source: 'project', decision: 'allow', rule: 'Edit(./src/**)' };
const persistedRule: MatchedRule = { id: 'r2', source: 'project', decision: 'allow', rule: 'remembered' };
const allow: PolicyDecision = { kind: 'allow', matched: [] };
const allowedByRule: PolicyDecision = { kind: 'allow', matched: [allowRule] };
const askRule: PolicyDecision = { kind: 'ask', reason: 'risk', matched: [] };
const askBare: PolicyDecision = { kind: 'ask', matched: [] };
const askProtected: PolicyDecision = { kind: 'ask', reason: 'protected_path', matched: [] };
const deny: PolicyDecision = { kind: 'deny', reason: 'not_allowed', matched: [] };

function file(path: string, flags: { protected?: boolean; outside?: boolean; real?: string } = {}): ResolvedPath {
  return { requested: path, path, real: flags.real ?? path, protected: flags.protected ?? false, linkTraversal: false, outside: flags.outside ?? false, created: false, hardLinked: false };
}

interface Case {
  readonly name: string;
  readonly mode: ApprovalMode;
  readonly decision: PolicyDecision;
  readonly action?: ToolActionClass;
  readonly files?: readonly ResolvedPath[];
  readonly pipelineProtected?: boolean;
  readonly remembered?: ApprovalModeInput['remembered'];
  readonly persisted?: boolean;
  readonly classifier?: boolean;
  /** The arguments hold a value the card shows masked. */
  readonly masked?: boolean;
  readonly expected: ApprovalModeVerdict;
}

const cases: readonly Case[] = [
  { name: 'a policy that now denies rejects, in any mode', mode: 'auto', decision: deny, expected: { kind: 'reject', reason: 'the policy changed and now refuses this call', by: 'policy' } },
  { name: 'plan mode rejects even what a rule allows', mode: 'plan', decision: allowedByRule, expected: { kind: 'reject', reason: 'plan mode: governed calls do not run', by: 'mode:plan' } },
  { name: 'ask mode asks with the reason the call is governed', mode: 'ask', decision: allow, expected: { kind: 'ask', reason: 'governed', protectedPath: false } },
  { name: 'an ask rule asks with its own reason', mode: 'auto', decision: askRule, expected: { kind: 'ask', reason: 'risk', protectedPath: false } },
  { name: 'an ask rule without a reason asks as a rule', mode: 'ask', decision: askBare, expected: { kind: 'ask', reason: 'rule', protectedPath: false } },
  { name: 'the policy asking for a protected path marks it protected', mode: 'ask', decision: askProtected, expected: { kind: 'ask', reason: 'protected_path', protectedPath: true } },
  {
    name: 'a file the host flags as protected asks, even in auto with an allow rule',
    mode: 'auto',
    decision: allowedByRule,
    action: 'fs_write',
    files: [file('src/a.ts'), file('.git/config', { protected: true })],
    expected: { kind: 'ask', reason: 'protected_path', protectedPath: true },
  },
  {
    name: 'a protected real path behind an innocent spelling asks',
    mode: 'accept-edits',
    decision: allow,
    action: 'fs_write',
    files: [file('src/link', { real: '.env' })],
    expected: { kind: 'ask', reason: 'protected_path', protectedPath: true },
  },
  { name: 'the pipeline finding a protected path asks', mode: 'auto', decision: allowedByRule, pipelineProtected: true, expected: { kind: 'ask', reason: 'protected_path', protectedPath: true } },
  { name: 'a protected path is never approved by memory', mode: 'ask', decision: allow, files: [file('.env')], remembered: { scope: 'session', mode: 'ask' }, expected: { kind: 'ask', reason: 'protected_path', protectedPath: true } },
  { name: 'a remembered approval approves in the mode it was given', mode: 'ask', decision: allow, remembered: { scope: 'session', mode: 'ask' }, expected: { kind: 'approve', scope: 'session', by: 'remembered' } },
  { name: 'a remembered approval approves in a more permissive mode', mode: 'auto', decision: allow, remembered: { scope: 'always', mode: 'accept-edits' }, expected: { kind: 'approve', scope: 'always', by: 'remembered' } },
  { name: 'a remembered approval does not carry into a stricter mode', mode: 'ask', decision: allow, remembered: { scope: 'session', mode: 'auto' }, expected: { kind: 'ask', reason: 'governed', protectedPath: false } },
  { name: 'a remembered approval does not answer an explicit ask', mode: 'ask', decision: askRule, remembered: { scope: 'session', mode: 'ask' }, expected: { kind: 'ask', reason: 'risk', protectedPath: false } },
  { name: 'an allow rule an earlier always persisted approves', mode: 'ask', decision: { kind: 'allow', matched: [persistedRule] }, persisted: true, expected: { kind: 'approve', scope: 'always', by: 'remembered' } },
  { name: 'an allow rule an earlier always persisted does not approve a call with a masked part', mode: 'ask', decision: { kind: 'allow', matched: [persistedRule] }, persisted: true, masked: true, expected: { kind: 'ask', reason: 'governed', protectedPath: false } },
  { name: 'nor does it in auto mode', mode: 'auto', decision: { kind: 'allow', matched: [persistedRule] }, persisted: true, masked: true, expected: { kind: 'ask', reason: 'governed', protectedPath: false } },
  { name: 'an allow rule of the configuration approves a call with a masked part in auto mode', mode: 'auto', decision: { kind: 'allow', matched: [persistedRule, allowRule] }, persisted: true, masked: true, expected: { kind: 'approve', by: 'mode:auto' } },
  { name: 'an allow rule not persisted by an always does not approve in ask mode', mode: 'ask', decision: allowedByRule, persisted: true, expected: { kind: 'ask', reason: 'governed', protectedPath: false } },
  { name: 'accept-edits approves a write inside the workspace', mode: 'accept-edits', decision: allow, action: 'fs_write', files: [file('src/a.ts')], expected: { kind: 'approve', by: 'mode:accept-edits' } },
  { name: 'accept-edits asks for a write outside the workspace', mode: 'accept-edits', decision: allow, action: 'fs_write', files: [file('/tmp/a', { outside: true })], expected: { kind: 'ask', reason: 'governed', protectedPath: false } },
  { name: 'accept-edits asks for a write whose real path leaves the workspace', mode: 'accept-edits', decision: allow, action: 'fs_write', files: [file('src/a.ts', { real: '/etc/a' })], expected: { kind: 'ask', reason: 'governed', protectedPath: false } },
  { name: 'accept-edits asks for a write with no file target', mode: 'accept-edits', decision: allow, action: 'fs_write', files: [], expected: { kind: 'ask', reason: 'governed', protectedPath: false } },
  { name: 'accept-edits asks for a command', mode: 'accept-edits', decision: allow, action: 'process', files: [file('.')], expected: { kind: 'ask', reason: 'governed', protectedPath: false } },
  { name: 'auto approves what an allow rule matched', mode: 'auto', decision: allowedByRule, expected: { kind: 'approve', by: 'mode:auto' } },
  { name: 'auto hands what no rule allows to the classifier', mode: 'auto', decision: allow, classifier: true, expected: { kind: 'classify' } },
  { name: 'auto without a classifier asks', mode: 'auto', decision: allow, expected: { kind: 'ask', reason: 'governed', protectedPath: false } },
  { name: 'the classifier is not consulted outside auto mode', mode: 'ask', decision: allow, classifier: true, expected: { kind: 'ask', reason: 'governed', protectedPath: false } },
];

/** The workspace is every relative path; `.env` stands for the protected paths. */
const insideWorkspace = (path: string): boolean => !path.startsWith('/');
const isProtected = (path: string): boolean => path === '.env';

describe('decideApprovalMode', () => {
  test.each(cases)('$name', (entry) => {
    const built = approvalRequest({
      toolName: 'tool',
      action: entry.action,
      resolved: { resolvedBy: 'host', access: entry.action === 'fs_write' ? 'write' : 'read', files: entry.files ?? [] },
      decision: entry.decision,
      reasons: { protectedPath: entry.pipelineProtected ?? false },
    });
    const request = entry.masked === true ? { ...built, masked: 1 } : built;
    const verdict = decideApprovalMode({
      mode: entry.mode,
      decision: entry.decision,
      request,
      remembered: entry.remembered,
      persisted: entry.persisted === true ? (rule) => rule === persistedRule : undefined,
      classifier: entry.classifier ?? false,
      isProtected,
      insideWorkspace,
    });
    expect(verdict).toEqual(entry.expected);
  });
});
