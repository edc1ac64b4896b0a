import { describe, expect, test } from 'vitest';
import { REDACTED, redactSecrets } from './redact-secrets.js';

const gh = 'ghp_' + 'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8';
const jwt = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U';

/** [label, input, expected] — the secret is replaced whole, the label kept. */
const positives: [string, string, string][] = [
  ['AWS access key id', 'key AKIAIOSFODNN7EXAMPLE here', `key ${REDACTED} here`],
  ['AWS STS key id', 'ASIAY34FZKBOKMUTVV7A', REDACTED],
  ['AWS secret (config)', 'aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', `aws_secret_access_key = ${REDACTED}`],
  ['AWS secret (JSON)', '"SecretAccessKey": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"', `"SecretAccessKey": "${REDACTED}"`],
  ['GitHub classic', `token ${gh}`, `token ${REDACTED}`],
  ['GitHub fine-grained', 'github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRS', REDACTED],
  ['GitHub OAuth', 'gho_' + 'x'.repeat(36), REDACTED],
  ['GitHub server', 'ghs_' + '9'.repeat(36), REDACTED],
  ['OpenAI legacy', 'sk-' + 'a1B2'.repeat(12), REDACTED],
  ['OpenAI project', 'sk-proj-' + 'Zz09_-'.repeat(10), REDACTED],
  ['Anthropic', 'sk-ant-api03-' + 'q'.repeat(40), REDACTED],
  ['Slack bot', 'xoxb-1234567890-0987654321-abcdefghij', REDACTED],
  ['Slack user', 'xoxp-1234567890-abcdefghijkl', REDACTED],
  ['Slack app', 'xapp-1-A0123456789-abcdefghij', REDACTED],
  ['Slack webhook', 'post to https://hooks.slack.com/services/T000/B000/XXXXXXXXXXXXXXXXXXXXXXXX now', `post to ${REDACTED} now`],
  ['Stripe live', 'sk_live_' + '4eC39HqLyjWDarjtT1zdp7dc', REDACTED],
  ['Stripe restricted', 'rk_live_' + '4eC39HqLyjWDarjtT1zdp7dc', REDACTED],
  ['Google API key', 'AIzaSyA-1234567890abcdefghijklmnopqrstu', REDACTED],
  ['JWT', `token=${jwt}`, `token=${REDACTED}`],
  ['RSA PEM', '-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----', REDACTED],
  ['EC PEM', 'a\n-----BEGIN EC PRIVATE KEY-----\nMHcC\n-----END EC PRIVATE KEY-----\nb', `a\n${REDACTED}\nb`],
  ['OpenSSH (Ed25519) PEM', '-----BEGIN OPENSSH PRIVATE KEY-----\nb3Bl\n-----END OPENSSH PRIVATE KEY-----', REDACTED],
  ['PKCS#8 PEM', '-----BEGIN PRIVATE KEY-----\nMC4C\n-----END PRIVATE KEY-----', REDACTED],
  ['encrypted PKCS#8', '-----BEGIN ENCRYPTED PRIVATE KEY-----\nMIIF\n-----END ENCRYPTED PRIVATE KEY-----', REDACTED],
  ['PGP private block', '-----BEGIN PGP PRIVATE KEY BLOCK-----\nlQ\n-----END PGP PRIVATE KEY BLOCK-----', REDACTED],
  ['truncated PEM (no END)', 'x -----BEGIN PRIVATE KEY-----\nMC4CAQAw', `x ${REDACTED}`],
  ['Authorization Bearer', 'Authorization: Bearer abc.def.ghi', `Authorization: Bearer ${REDACTED}`],
  ['Authorization Basic', 'authorization: Basic dXNlcjpwYXNz', `authorization: Basic ${REDACTED}`],
  ['Authorization in JSON', '{"Authorization": "Bearer x1y2z3"}', `{"Authorization": "Bearer ${REDACTED}"}`],
  ['bare Bearer token', 'curl -H "Bearer 0123456789abcdefXYZ"', `curl -H "Bearer ${REDACTED}"`],
  ['URL userinfo', 'https://user:hunter2@example.com/x', `https://${REDACTED}@example.com/x`],
  ['URL token userinfo', 'git clone https://x-access-token:abc123@github.com/o/r', `git clone https://${REDACTED}@github.com/o/r`],
  ['*_KEY assignment', 'export OPENAI_API_KEY=abc123def456', `export OPENAI_API_KEY=${REDACTED}`],
  ['*_SECRET assignment', 'CLIENT_SECRET: "s3cr3t-value"', `CLIENT_SECRET: "${REDACTED}"`],
  ['*_TOKEN assignment', 'NPM_TOKEN=npm_abcdefghijklmnop', `NPM_TOKEN=${REDACTED}`],
  ['*_PASSWORD assignment', 'DB_PASSWORD=correcthorse', `DB_PASSWORD=${REDACTED}`],
  ['lowercase key', 'api_key: abcd1234', `api_key: ${REDACTED}`],
  ['camelCase key', '{"apiKey":"abcd1234"}', `{"apiKey":"${REDACTED}"}`],
  ['password', 'password=hunter22', `password=${REDACTED}`],
  ['dotted name', 'spring.datasource.password=abcd', `spring.datasource.password=${REDACTED}`],
];

/** Look-alikes: prose, identifiers and hashes that must come back unchanged. */
const lookAlikes: [string, string][] = [
  ['prose about keys', 'The primary key: user_id is indexed.'],
  ['prose about tokens', 'Count the tokens: roughly four per word.'],
  ['prose monkey', 'monkey = banana'],
  ['git SHA-1', 'commit 9fceb02d0ae598e95dc970b74767f19372d61af8'],
  ['short SHA', 'fixed in 9fceb02'],
  ['SHA-256', 'sha256: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'],
  ['UUID', 'id 123e4567-e89b-12d3-a456-426614174000'],
  ['MD5', 'd41d8cd98f00b204e9800998ecf8427e'],
  ['base64 data', 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=='],
  ['AKIA too short', 'AKIAEXAMPLE'],
  ['sk- too short', 'sk-learn is a library'],
  ['gh without token', 'ghp_ prefix alone'],
  ['PWD variable', 'PWD=/home/user/project'],
  ['max tokens', 'MAX_TOKENS=4096 and KEY_COUNT'],
  ['public key PEM', '-----BEGIN PUBLIC KEY-----\nMFkw\n-----END PUBLIC KEY-----'],
  ['certificate PEM', '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----'],
  ['Bearer prose', 'Bearer authentication is described in RFC 6750.'],
  ['URL without userinfo', 'https://example.com/a@b?email=x@y.z'],
  ['email', 'mail alice@example.com'],
  ['npm scoped package', '@types/node@20.19.43'],
  ['path with key in name', 'src/keys/public_key.pem'],
  ['key prefix in word', 'monkeypatch: true'],
  ['JWT-like header only', 'eyJhbGciOiJIUzI1NiJ9'],
  ['empty', ''],
];

describe('redactSecrets', () => {
  test.each(positives)('redacts %s', (_label, input, expected) => {
    expect(redactSecrets(input)).toBe(expected);
  });

  test.each(lookAlikes)('leaves %s alone', (_label, input) => {
    expect(redactSecrets(input)).toBe(input);
  });

  test('scrubs the whole string, every occurrence', () => {
    const text = `first ${gh} then ${gh} and AKIAIOSFODNN7EXAMPLE`;
    expect(redactSecrets(text)).toBe(`first ${REDACTED} then ${REDACTED} and ${REDACTED}`);
  });

  test('is idempotent', () => {
    for (const [, input] of positives) expect(redactSecrets(redactSecrets(input))).toBe(redactSecrets(input));
  });

  test('stays linear on long adversarial input', () => {
    const long = `${'a-'.repeat(50_000)}x ${'A_'.repeat(50_000)}`;
    expect(redactSecrets(long)).toBe(long);
  });

  // Quadratic, the scheme scan took several seconds on this input: the test timeout is the guard.
  test('stays linear on a long run of scheme characters before ://', { timeout: 2_000 }, () => {
    const dots = `${'a.'.repeat(64 * 1024)}://${'x'.repeat(128 * 1024)}`;
    expect(redactSecrets(dots)).toBe(dots);
    const schemes = `${'a+'.repeat(64 * 1024)}://user:${'p'.repeat(1024)}@host`;
    expect(redactSecrets(schemes)).toBe(`${'a+'.repeat(64 * 1024)}://${REDACTED}@host`);
  });
});
