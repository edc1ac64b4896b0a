// A secret the model (or a prompt-injected page) passes to an upstream tool in a header or an environment variable
// spelled as a name/value pair: `headers: [{ name: 'Authorization', value: 'Basic …' }]` (HAR, Postman, many MCP HTTP
// tools), `[['X-Api-Key', '…']]` (fetch's HeadersInit), `env: [{ name: 'DATABASE_PASSWORD', value }]` (Kubernetes,
// Docker), or a URL's `pass=`. The same credential as `headers: { Authorization: 'Basic …' }` was recorded as
// `Basic [redacted]`; as a pair, whose name is in one member and value in another that names nothing, it went to the
// journal, `toolgate audit export` and the console as it was. A pair's value is now masked by the name it holds.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useAttackHomes } from './support/attack-workspace.js';
import { closeAfterEach, connectClient, makeWorkspace, serveWorkspace } from './support/serve-gateway.js';
import { runCli } from './support/spawn-cli.js';

const open = closeAfterEach();
const home = useAttackHomes('toolgate-journal-secret-pairs');
const SERVER = join(import.meta.dirname, 'fixtures', 'mcp', 'api-pairs-server.mjs');

// Credentials with no vendor shape: what a basic-auth header, an internal API key and a database password look like.
const BASIC = 'Basic ' + Buffer.from('deploy:Tr0ub4dor&3-prod').toString('base64');
const API_KEY = 'f3a9c2e1d4b5a6978877665544332211';
const DB_PASSWORD = 'Tr0ub4dor-db-prod-77';
const QUERY_PASS = 'Tr0ub4dor-query-55';
// The control: the same kind of header as a member of an object.
const BASIC_MEMBER = 'Basic ' + Buffer.from('deploy:member-secret-9').toString('base64');

describe('attack: a credential passed as a name/value pair is recorded unredacted', () => {
  it('headers and env as pairs reach the journal, audit show and the console as they are; the same header as a member is masked', async () => {
    const HOME = home();
    const workspace = makeWorkspace({ mode: 'auto', servers: { api: { command: process.execPath, args: [SERVER], trust: 'annotations' } } });
    const gateway = open.gateway(await serveWorkspace(workspace, { env: { HOME } }));
    const mcp = open.client((await connectClient(gateway.mcpUrl, 'attacker', undefined, gateway.auth)).client);
    const tools = await mcp.listTools();
    expect(tools.tools.map((tool) => tool.name)).toContain('mcp_api_call_api');

    const answer = await mcp.callTool({
      name: 'mcp_api_call_api',
      arguments: {
        url: `https://internal.example/deploy?user=deploy&pass=${QUERY_PASS}`,
        headers: [{ name: 'Authorization', value: BASIC }],
        headerTuples: [['X-Api-Key', API_KEY]],
        env: [{ name: 'DATABASE_PASSWORD', value: DB_PASSWORD }],
      },
    });
    expect(JSON.stringify(answer.content)).toContain('status 200');
    const control = await mcp.callTool({ name: 'mcp_api_call_api', arguments: { url: 'https://internal.example/status', headerObject: { Authorization: BASIC_MEMBER } } });
    expect(JSON.stringify(control.content)).toContain('status 200');

    // The receipt the console serves.
    const list = await gateway.api('/api/receipts?tool=mcp_api_call_api');
    const consoleText = JSON.stringify(list.body);
    await gateway.cli.stop();

    // What `toolgate audit export` and the journal file hold.
    const exported = await runCli(['audit', 'export', '--format', 'jsonl', '--out', join(HOME, 'export.jsonl')], workspace, undefined, { HOME });
    expect(exported.code).toBe(0);
    const exportText = readFileSync(join(HOME, 'export.jsonl'), 'utf8');
    const journalBytes = readFileSync(join(workspace, '.toolgate', 'journal.db')).toString('latin1');
    expect(exportText).toContain('mcp_api_call_api');

    // Control: the same credential as a member named Authorization is masked, in the console, the export and the file.
    expect(exportText).toContain('"Authorization":"Basic [redacted]"');
    expect(consoleText).not.toContain(BASIC_MEMBER);
    expect(exportText).not.toContain(BASIC_MEMBER);
    expect(journalBytes).not.toContain(BASIC_MEMBER);

    const leaks = {
      consoleBasic: consoleText.includes(BASIC),
      consoleApiKey: consoleText.includes(API_KEY),
      consoleDbPassword: consoleText.includes(DB_PASSWORD),
      exportBasic: exportText.includes(BASIC),
      exportApiKey: exportText.includes(API_KEY),
      exportDbPassword: exportText.includes(DB_PASSWORD),
      exportQueryPass: exportText.includes(QUERY_PASS),
      journalBasic: journalBytes.includes(BASIC),
      journalApiKey: journalBytes.includes(API_KEY),
      journalDbPassword: journalBytes.includes(DB_PASSWORD),
    };
    expect(leaks).toEqual({
      consoleBasic: false,
      consoleApiKey: false,
      consoleDbPassword: false,
      exportBasic: false,
      exportApiKey: false,
      exportDbPassword: false,
      exportQueryPass: false,
      journalBasic: false,
      journalApiKey: false,
      journalDbPassword: false,
    });
  }, 60_000);
});
