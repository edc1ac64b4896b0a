// Credentials passed to an upstream tool in the shapes real APIs give them, end to end through `toolgate serve`, read
// back from the console's `GET /api/receipts`, `toolgate audit export --format jsonl` and the journal file's bytes:
// name/value pairs (`headers: [{ name: 'Authorization', value }]` as HAR and Postman spell them, fetch's
// `[['X-Api-Key', key]]`, Kubernetes' `env: [{ name: 'DATABASE_PASSWORD', value }]`), a URL's `pass=`, a multi-valued
// header map, libpq's PGPASSWORD, an AWS SSM parameter, header tuples naming Azure's and GitLab's headers, cookie lists,
// AWS's SecretString, a URL password holding an `@`, a pair named past the projection's cut. Masked by member names alone, each went to all three as it was (a credential with
// no vendor shape: a Basic header, an internal API key, a password). A control shows a secret in a shape long masked.
import { beforeAll, describe, expect, it } from 'vitest';
import { useAttackHomes } from './support/attack-workspace.js';
import { recordCalls } from './support/recorded-calls.js';

const home = useAttackHomes('toolgate-journal-secret-shapes');

// Credentials with no vendor shape, one per finding.
const PAIR_BASIC = 'Basic ' + Buffer.from('deploy:Tr0ub4dor&3-prod').toString('base64');
const TUPLE_API_KEY = 'f3a9c2e1d4b5a6978877665544332211';
const PAIR_DB_PASSWORD = 'Tr0ub4dor-db-prod-77';
const QUERY_PASS = 'Tr0ub4dor-query-55';
const BASIC_ARRAY = 'Basic ' + Buffer.from('deploy:array-header-secret-1').toString('base64');
const API_KEY_ARRAY = 'a1b2c3d4e5f60718293a4b5c6d7e8f90';
const PG_PASSWORD_ENV = 'Tr0ub4dor-pg-env-11';
const PG_PASSWORD_CMD = 'Tr0ub4dor-pg-cmd-22';
const SSM_PASSWORD = 'Tr0ub4dor-ssm-33';
const AZURE_KEY = 'k9Fq2Lx7Wm3Rt8Yv1Azure';
const GITLAB_TOKEN = 'k9Fq2Lx7Wm3Rt8Yv2Gitlab';
const HAR_SESSION = 'k9Fq2Lx7Wm3Rt8Yv4Session';
const BROWSER_SID = 'k9Fq2Lx7Wm3Rt8Yv5Sid';
const SECRET_STRING = 'k9Fq2Lx7Wm3Rt8Yv6SecretStr';
const VALUES_PLURAL = 'k9Fq2Lx7Wm3Rt8Yv7Values';
const URL_PASSWORD_TAIL = 'Tr0ub4dor-url-tail-55';
const PAIR_LIST_BASIC = 'Basic ' + Buffer.from('deploy:pair-list-secret-8').toString('base64');
const CUT_PAIR_PASSWORD = 'Tr0ub4dor-cut-pair-88';
// Controls: the same kinds in the shapes the docs list as masked.
const BASIC_MEMBER = 'Basic ' + Buffer.from('deploy:member-secret-9').toString('base64');
const DB_PASSWORD_CONTROL = 'Tr0ub4dor-control-77';

let consoleText = '';
let exportText = '';
let journalBytes = '';
const seen = (secret: string): { console: boolean; export: boolean; journal: boolean } => ({
  console: consoleText.includes(secret),
  export: exportText.includes(secret),
  journal: journalBytes.includes(secret),
});
const NONE = { console: false, export: false, journal: false };

beforeAll(async () => {
  const calls: Record<string, unknown>[] = [
    // Name/value pairs, and a URL's `pass=`.
    {
      url: `https://internal.example/deploy?user=deploy&pass=${QUERY_PASS}`,
      headers: [{ name: 'Authorization', value: PAIR_BASIC }],
      headerTuples: [['X-Api-Key', TUPLE_API_KEY]],
      env: [{ name: 'DATABASE_PASSWORD', value: PAIR_DB_PASSWORD }],
    },
    // 1. A multi-valued header map (Go's http.Header, `{"Authorization": ["Bearer …"]}`): the member is named like a header.
    { url: 'https://internal.example/a', headers: { Authorization: [BASIC_ARRAY], 'X-Api-Key': [API_KEY_ARRAY] }, env: [{ name: 'Authorization', value: [PAIR_LIST_BASIC] }] },
    // 2. libpq's password variable, as a Kubernetes/Docker env pair and on a command line.
    { url: 'https://internal.example/b', env: [{ name: 'PGPASSWORD', value: PG_PASSWORD_ENV }], command: `PGPASSWORD=${PG_PASSWORD_CMD} psql -h db -U app -c 'select 1'` },
    // 3. AWS SSM PutParameter: AWS's { Name, Value } with the parameter's hierarchical name.
    { Name: '/prod/db/password', Value: SSM_PASSWORD, Type: 'SecureString' },
    // fetch's header tuples naming credential headers that are neither `Authorization` nor `X-…` (Azure's, GitLab's).
    { url: 'https://myco.openai.azure.com/x', headerTuples: [['api-key', AZURE_KEY], ['PRIVATE-TOKEN', GITLAB_TOKEN], ['Accept', 'application/json']] },
    // A HAR entry's cookies, and a browser's (Playwright's `addCookies`).
    { url: 'https://app.example/', headers: { cookies: [{ name: 'sessionid', value: HAR_SESSION }] }, env: { cookies: [{ name: 'sid', value: BROWSER_SID, domain: 'app.example', httpOnly: true }] } },
    // AWS Secrets Manager's PutSecretValue, and an EC2 or ELB filter's `{ Name, Values }`.
    { env: { SecretId: 'prod/db', SecretString: SECRET_STRING }, headers: { Conditions: [{ Name: 'Authorization', Values: [VALUES_PLURAL] }] } },
    // 5. URL userinfo whose password holds an unescaped `@` (WHATWG URL, Python, libpq read the last `@` as the end).
    { command: `psql 'postgres://app:p4ss@${URL_PASSWORD_TAIL}@db.internal:5432/prod' -c 'select 1'` },
    // 7. A pair whose name member comes after the projection's 64 entries: the value is shown, the name cut.
    { url: 'https://internal.example/d', env: [{ value: CUT_PAIR_PASSWORD, ...Object.fromEntries(Array.from({ length: 64 }, (_, i) => [`label${i}`, i])), name: 'DATABASE_PASSWORD' }] },
    // Controls.
    { url: 'https://internal.example/status', headers: { Authorization: BASIC_MEMBER }, env: [{ name: 'DATABASE_PASSWORD', value: DB_PASSWORD_CONTROL }] },
  ];
  ({ consoleText, exportText, journalBytes } = await recordCalls(home(), calls));
}, 90_000);

describe('attack: credentials in the shapes real APIs give them are masked in the console, the export and the journal', () => {
  it('control: the recorded calls are there and the listed shapes are masked', () => {
    expect(exportText.match(/mcp_api_call_api/g)?.length ?? 0).toBeGreaterThanOrEqual(10);
    expect(consoleText).toContain('/prod/db/password');
    expect(exportText).toContain('"Authorization":"Basic [redacted]"');
    expect(seen(BASIC_MEMBER)).toEqual(NONE);
    expect(seen(DB_PASSWORD_CONTROL)).toEqual(NONE);
  });

  it('name/value pairs naming a credential (HAR headers, a fetch tuple, a Kubernetes env) and a URL\'s pass= are masked', () => {
    expect({ pair: seen(PAIR_BASIC), tuple: seen(TUPLE_API_KEY), env: seen(PAIR_DB_PASSWORD), query: seen(QUERY_PASS) }).toEqual({ pair: NONE, tuple: NONE, env: NONE, query: NONE });
    expect(exportText).toContain('"name":"Authorization","value":"Basic [redacted]"');
  });

  it('a header member named Authorization / X-Api-Key whose value is a list (a multi-valued header map) is masked', () => {
    expect({ basic: seen(BASIC_ARRAY), apiKey: seen(API_KEY_ARRAY), pairValueList: seen(PAIR_LIST_BASIC) }).toEqual({ basic: NONE, apiKey: NONE, pairValueList: NONE });
  });

  it('PGPASSWORD, as an env pair and as a command-line assignment, is masked', () => {
    expect({ envPair: seen(PG_PASSWORD_ENV), commandLine: seen(PG_PASSWORD_CMD) }).toEqual({ envPair: NONE, commandLine: NONE });
  });

  it("AWS SSM's { Name: '/prod/db/password', Value } pair is masked", () => {
    expect(seen(SSM_PASSWORD)).toEqual(NONE);
  });

  it("header tuples naming api-key and PRIVATE-TOKEN, cookie lists, AWS's SecretString and a { Name, Values } filter are masked", () => {
    expect({ azure: seen(AZURE_KEY), gitlab: seen(GITLAB_TOKEN), har: seen(HAR_SESSION), browser: seen(BROWSER_SID), secretString: seen(SECRET_STRING), values: seen(VALUES_PLURAL) }).toEqual({
      azure: NONE,
      gitlab: NONE,
      har: NONE,
      browser: NONE,
      secretString: NONE,
      values: NONE,
    });
  });

  it('URL userinfo whose password holds an unescaped @ is masked to its last @', () => {
    expect(seen(URL_PASSWORD_TAIL)).toEqual(NONE);
  });

  it('a pair whose name member lies past maxEntries (64) has its value masked', () => {
    expect(seen(CUT_PAIR_PASSWORD)).toEqual(NONE);
  });
});
