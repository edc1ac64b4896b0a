import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { projectArguments } from '../receipts/project-arguments.js';
import { REDACTED, redactSecrets, redactSecretsCounted } from './redact-secrets.js';
import { isPlaceholder } from './secret-token.js';

/** Text a person must be able to read: paths, `..`, command words, config, and look-alikes of secrets that are none. */
const structure = fc.constantFrom(
  'touch PWNED',
  'rm -rf /',
  '../../.git/config',
  '>/dev/null',
  'echo hi',
  '[core]',
  'fsmonitor = "sh -c evil"',
  'sh -c',
  'src/app.ts',
  '..',
  '/etc/passwd',
  'reboot',
  '/sbin/reboot',
  'git push origin main',
  'cat ~/.ssh/config',
  'a && b | c',
  'PWD=/home/user/project',
  'MAX_TOKENS=4096',
  'The primary key: user_id is indexed.',
  'https://git@github.com/org/repo.git',
  'password: ********',
  'OPENAI_API_KEY=<your-api-key-here>',
  'export ANTHROPIC_API_KEY=sk-ant-...',
  'monkey = banana',
);

/** A secret value with no shape of its own: lower-case letters and digits, so only where it stands makes it one. */
const value = fc.stringMatching(/^[a-z]{2,6}[0-9]{2,6}[a-z0-9]{0,12}$/);
/** A key's body as PEM writers wrap it: lines of one width, 40 to 64 characters, and maybe a shorter last one (a line of another width is shown). */
const keyBody = fc.integer({ min: 40, max: 64 }).chain((width) =>
  fc
    .tuple(fc.array(fc.stringMatching(new RegExp(`^[A-Z][A-Za-z0-9+/]{${String(width - 1)}}$`)), { minLength: 1, maxLength: 3 }), fc.option(fc.stringMatching(new RegExp(`^[A-Z][A-Za-z0-9+/]{0,${String(width - 2)}}$`))))
    .map(([lines, last]) => (last === null ? lines : [...lines, last])),
);

interface Part {
  readonly text: string;
  /** The text once redacted; undefined for structure, which must come back as it is. */
  readonly expected?: string;
  /** Must be followed by a separator that cannot continue it (a private key's next line could be its body). */
  readonly closed?: boolean;
}

const labelled = (label: string, suffix = ''): fc.Arbitrary<Part> => value.map((secret) => ({ text: `${label}${secret}${suffix}`, expected: `${label}${REDACTED}${suffix}` }));
const vendor = (make: (secret: string) => string): fc.Arbitrary<Part> => value.map((secret) => ({ text: make(secret), expected: REDACTED }));

const secret: fc.Arbitrary<Part> = fc.oneof(
  labelled('api_key='),
  labelled('DB_PASSWORD='),
  labelled('token='),
  labelled('--secret='),
  labelled('?key='),
  labelled('&sig='),
  labelled('"client_secret": "', '"'),
  labelled('Authorization: Bearer '),
  labelled('Authorization: '),
  labelled('Proxy-Authorization: Basic '),
  labelled('X-Api-Key: '),
  labelled('X-Auth-Token: '),
  labelled('Cookie: sid='),
  value.map((secret) => ({ text: `https://user:${secret}@example.com`, expected: `https://${REDACTED}@example.com` })),
  vendor((secret) => `ghp_${secret.padEnd(36, '0')}`),
  vendor((secret) => `AKIA${secret.toUpperCase().padEnd(16, 'Q').slice(0, 16)}`),
  vendor((secret) => `sk-proj-${secret.padEnd(24, 'z')}`),
  fc.constant({ text: '-----BEGIN PRIVATE KEY-----', expected: REDACTED, closed: true }),
  keyBody.map((lines) => ({
    text: ['-----BEGIN RSA PRIVATE KEY-----', ...lines, '-----END RSA PRIVATE KEY-----'].join('\n'),
    expected: REDACTED,
  })),
);

const separator = fc.constantFrom(' ', '\n', '/', ' | ');
const text = fc.array(fc.tuple(fc.oneof(structure.map((part): Part => ({ text: part })), secret), separator), { minLength: 1, maxLength: 8 });

/** Parts joined by their separators; two secrets joined by `/` would be one base64-shaped token, so a space joins them. */
const join = (parts: readonly [Part, string][], pick: (part: Part) => string): string =>
  parts
    .map(([part, between], index) => {
      const next = parts[index + 1]?.[0];
      if (next === undefined) return pick(part);
      if (part.closed === true) return `${pick(part)} ; `;
      return `${pick(part)}${between === '/' && next.expected !== undefined && part.expected !== undefined ? ' ' : between}`;
    })
    .join('');

describe('property: redaction masks the secret token and nothing else', () => {
  test('every path separator, `..` and command word stays, every secret goes, each counted once', () => {
    fc.assert(
      fc.property(text, (parts) => {
        const redacted = redactSecretsCounted(join(parts, (part) => part.text));
        expect(redacted.text).toBe(join(parts, (part) => part.expected ?? part.text));
        expect(redacted.masked).toBe(parts.filter(([part]) => part.expected !== undefined).length);
      }),
      { numRuns: 500 },
    );
  });

  test('is idempotent on the texts above and on text made of labels, separators and markers', () => {
    const pieces = fc.constantFrom(
      'token', 'key', 'api_key', 'password', 'sig', 'PWD', 'Authorization', 'Cookie', 'Set-Cookie', 'X-Api-Key', 'X-Auth', 'Bearer ', 'Basic ', 'SharedKey ',
      '=', ':', ': ', ' ', '/', '..', '.', '-', '_', '"', "'", '`', '\\"', '\\n', ';', ',', '&', '?', '#', '\n', '[', ']', '<', '>', '{{', '${', '}', '$(', '%2F',
      'abc123', 'hunter22', 'Users', 'wJalrXUtnFEMI/K7MDENG', REDACTED, '<x>', '***', '...', 'true', 'https://', 'u:p@', '@', 'sid=',
      '-----BEGIN PRIVATE KEY-----', '-----END PRIVATE KEY-----', 'Proc-Type: 4', 'MIIEvQIBADAN', `ghp_${'a1'.repeat(18)}`, 'AKIAIOSFODNN7EXAMPLE', 'sk-proj-Zq8vT3xW9yB2nL5mK7pR',
    );
    fc.assert(
      fc.property(fc.oneof(text.map((parts) => join(parts, (part) => part.text)), fc.array(pieces, { maxLength: 32 }).map((list) => list.join(''))), (input) => {
        const once = redactSecrets(input);
        expect(redactSecrets(once)).toBe(once);
        expect(redactSecretsCounted(once).masked).toBe(0);
      }),
      { numRuns: 1000 },
    );
  });
});

/** A credential as a model or a server would put it: long, random, nothing a placeholder is made of. */
const credential = fc.stringMatching(/^[A-Za-z0-9_-]{12,40}$/).filter((candidate) => !isPlaceholder(candidate) && /[0-9]/.test(candidate));
const headerName = fc.constantFrom('Authorization', 'authorization', 'Proxy-Authorization', 'X-Api-Key', 'X-Auth-Token', 'x-goog-api-key', 'X-Client-Secret', 'X-Hub-Signature-256', 'X-Auth');
const scheme = fc.constantFrom('', 'Bearer ', 'Basic ', 'token ', 'SharedKey ');
const queryKey = fc.constantFrom('token', 'secret', 'key', 'apikey', 'api_key', 'access_token', 'refresh_token', 'id_token', 'sig', 'signature', 'password', 'passwd', 'pwd', 'client_secret', 'private_key', 'session', 'auth');
const memberName = fc.constantFrom('token', 'secret', 'apikey', 'api_key', 'access_token', 'password', 'client_secret', 'private_key', 'sig', 'GITHUB_TOKEN', 'apiKey');
const bodyLine = fc.constantFrom(
  (name: string, secret: string) => `${name.toUpperCase()}=${secret}`,
  (name: string, secret: string) => `{"${name}": "${secret}"}`,
  (name: string, secret: string) => `${name}=${secret}&next=1`,
  (_name: string, secret: string) => `Authorization: ${secret}`,
  (_name: string, secret: string) => `Cookie: theme=dark; sid=${secret}`,
  (_name: string, secret: string) => `git remote add origin https://deploy:${secret}@git.example.com/o/r.git`,
);

describe('property: a receipt never keeps a credential', () => {
  test('in headers, query strings, bodies and argument members, by where it stands', () => {
    fc.assert(
      fc.property(
        fc.record({ secrets: fc.array(credential, { minLength: 6, maxLength: 6 }), header: headerName, scheme, query: queryKey, member: memberName, line: bodyLine }),
        ({ secrets: [a = '', b = '', c = '', d = '', e = '', f = ''], header, scheme: prefix, query, member, line }) => {
          const args = {
            url: `https://api.example.com/v1/items?page=2&${query}=${a}`,
            method: 'POST',
            headers: { Accept: 'application/json', [header]: `${prefix}${b}`, Cookie: `sid=${c}; lang=en` },
            body: `first line\n${line(member, d)}\nlast line`,
            [member]: e,
            options: { nested: { [member]: f } },
          };
          const shown = [JSON.stringify(projectArguments(args)), redactSecrets(JSON.stringify(args)), redactSecrets(JSON.stringify(args, null, 2))];
          for (const view of shown) for (const secret of [a, b, c, d, e, f]) expect(view).not.toContain(secret);
        },
      ),
      { numRuns: 500 },
    );
  });
});
