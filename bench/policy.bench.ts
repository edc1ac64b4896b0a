/**
 * Policy decisions per call: the floor plus rules, against a hand-written
 * allowlist check (the bare minimum a loop would do), and redaction on a
 * realistic tool-input text and on a receipt.
 */
import { createPolicy, redactSecrets, type ArgumentPolicyInput, type PolicyToolView } from 'toolgate';
import { bench, checkGoal, cpuTimes, formatNs } from './harness.js';

const tool = (name: string, policy: Partial<PolicyToolView['policy']>, effect: PolicyToolView['effect']): PolicyToolView => ({
  name,
  version: undefined,
  source: 'builtin',
  effect,
  risk: 'medium',
  policy: { fsScoped: false, fsWrite: false, spawnsProcess: false, egress: undefined, os: false, requiresGate: false, ...policy },
  permissions: [],
  readOnly: false,
});

const runCommand = tool('run_command', { spawnsProcess: true }, 'execute');
const httpRequest = tool('http_request', { egress: 'http' }, 'external');
const writeFile = tool('write_file', { fsScoped: true, fsWrite: true }, 'write');
const allowed = ['git status', 'npm test', 'npm run lint', 'git diff --stat'];
const rules = Array.from({ length: 50 }, (_unused, index) => ({ rule: `Bash(tool${index} run:*)`, decision: index % 3 === 0 ? ('deny' as const) : ('allow' as const), source: 'project' as const }));
const floorOnly = createPolicy({ allowedCommands: allowed, allowedDomains: ['api.github.com'] });
const withRules = createPolicy({ allowedCommands: allowed, allowedDomains: ['api.github.com'], rules: [...rules, { rule: 'Edit(./docs/**)', decision: 'allow', source: 'project' }] });
const input = (view: PolicyToolView, target: ArgumentPolicyInput['target']): ArgumentPolicyInput => ({ tool: view, agent: undefined, args: {}, target, gateApproved: false });
const command = input(runCommand, { command: 'npm run lint' });
const fetchInput = input(httpRequest, { url: 'https://api.github.com/repos/o/r' });
const writeInput = input(writeFile, { path: 'docs/guide/intro.md' });
const bare = new Set(allowed);
const text = JSON.stringify({
  path: 'src/components/settings/panel.tsx',
  content: 'export function Panel() {\n  return <div className="panel">Settings</div>;\n}\n'.repeat(30),
  message: 'Refactor the settings panel; see 9fceb02d0ae598e95dc970b74767f19372d61af8',
});

/** A receipt of an http_request as the journal and the console hold it: headers, a URL with a query, prose, one secret. */
const receipt = JSON.stringify({
  invocationId: 'inv_01J9Z7Q4W8X2M5N6B7V8C9D0EF',
  callId: 'call_7f3a9c2e',
  tool: 'http_request',
  version: '1.4.0',
  agent: 'triage-agent',
  status: 'ok',
  code: 'OK',
  outputSummary:
    '{"status":200,"headers":{"content-type":"application/json; charset=utf-8","etag":"W/\\"a18c3bded88eb5dbb5c849a489412bf3\\"","x-ratelimit-remaining":"4987"},"body":"{\\"total_count\\":1,\\"items\\":[{\\"id\\":42,\\"title\\":\\"Login fails after a password reset\\",\\"state\\":\\"open\\"}]}","truncated":false}',
  affectedEntities: ['api.github.com'],
  inputDigest: 'sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
  actionDigest: 'sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
  policy: { decision: 'ask', version: 7, rules: [{ id: 'egress-github', source: 'project', decision: 'ask' }] },
  approval: { outcome: 'approve', how: 'confirm:alice', scope: 'once', at: 1735689600000 },
  effect: 'external',
  risk: 'medium',
  tier: 'T2',
  startedAt: 1735689600000,
  durationMs: 184,
  arguments: {
    url: 'https://api.github.com/search/issues?q=repo%3Aacme%2Fwidgets+is%3Aissue+is%3Aopen+label%3Abug&sort=updated&order=desc&per_page=20&page=1',
    method: 'GET',
    headers: {
      Accept: 'application/vnd.github+json',
      'User-Agent': 'toolgate-triage/1.4',
      'X-GitHub-Api-Version': '2022-11-28',
      'If-None-Match': 'W/"a18c3bded88eb5dbb5c849a489412bf3"',
      'Accept-Language': 'en-GB,en;q=0.9',
      'X-Request-Id': '4bf92f3577b34da6a3ce929d0e0e4736',
      Authorization: 'Bearer ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8',
    },
    body:
      'Searching for open bug reports in the widgets repository that mention the login flow, so that the triage agent can group them by the ' +
      'release they first appeared in and link each one to the commit that introduced it. Results are sorted by their last update; the first ' +
      'page is enough for the daily summary that goes to the team channel at nine, together with the count of issues closed since yesterday, ' +
      'the three oldest open ones and anyone who was mentioned in them but has not answered yet. Duplicates are marked, not closed: a person ' +
      'decides. The summary links to the dashboard at https://dashboard.example.com/widgets/triage?view=daily&team=auth for the full list. ' +
      'Issues that carry the security label are left out of the channel post and sent to the on-call engineer instead, with their reporter, ' +
      'the affected versions and the time they were opened; the agent never comments on them itself.',
  },
});
const RECEIPT_GOAL_NS = 25_000;

export async function run(): Promise<void> {
  await bench(
    [
      { name: 'bare Set lookup of the command string', run: () => bare.has('npm run lint') },
      { name: 'policy: command (floor only)', run: () => floorOnly.decideArguments(command) },
      { name: 'policy: command (51 rules)', run: () => withRules.decideArguments(command) },
      { name: 'policy: https domain (51 rules)', run: () => withRules.decideArguments(fetchInput) },
      { name: 'policy: write path rule (51 rules)', run: () => withRules.decideArguments(writeInput) },
    ],
    { title: 'policy decisions', batch: 2000 },
  );
  const receiptCase = `redactSecrets (${receipt.length} B receipt, one secret)`;
  const rows = await bench(
    [
      { name: `redactSecrets (${text.length} chars, no secret)`, run: () => redactSecrets(text) },
      { name: receiptCase, run: () => redactSecrets(receipt) },
    ],
    { title: `redaction (goal for the receipt ≤ ${formatNs(RECEIPT_GOAL_NS)})`, batch: 200 },
  );
  const wall = rows.find((row) => row.name === receiptCase)?.medianNs ?? Number.NaN;
  // CPU time as well: on a shared machine, wall time also counts waiting for a core.
  const cpu = (await cpuTimes([{ name: receiptCase, run: () => redactSecrets(receipt) }], { batch: 1000, rounds: 20 })).get(receiptCase) ?? Number.NaN;
  checkGoal(`redaction of a ${receipt.length} B receipt, wall time (p50)`, wall, RECEIPT_GOAL_NS, 'ns');
  checkGoal(`redaction of a ${receipt.length} B receipt, CPU time per call`, cpu, RECEIPT_GOAL_NS, 'ns');
}
