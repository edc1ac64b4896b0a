import { createPolicy } from './create-policy.js';
import type { PolicySnapshot } from './policy-snapshot-types.js';

/**
 * The policy a registry uses when none is given: `createPolicy({})`, the
 * guardrails with every allowlist empty, so it fails closed. No
 * command runs, no domain is reached, no MCP server is called, gated tools
 * need `gateApproved`, and writes to protected paths need an approval.
 */
export const guardrailFloor: PolicySnapshot = createPolicy({ version: 0 });
