/**
 * Policy decisions per call: the floor plus rules, against a hand-written
 * allowlist check (the bare minimum a loop would do), and redaction on a
 * realistic tool-input text.
 */
import { createPolicy, redactSecrets, type ArgumentPolicyInput, type PolicyToolView } from 'toolgate';
import { bench } from './harness.js';

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
  await bench([{ name: `redactSecrets (${text.length} chars, no secret)`, run: () => redactSecrets(text) }], { title: 'redaction', batch: 200 });
}
