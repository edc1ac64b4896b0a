import picomatch from 'picomatch/posix.js';
import { describe, expect, it } from 'vitest';
import { normalizePath } from './normalize-path.js';
import { createProtectedPathMatcher, createProtectedTextMatcher, DEFAULT_PROTECTED_PATHS, gitignoreGlob, literalPathGlob, protectedLinkProbes, requiredLiteral, withChildren, withoutTrailingDotsAndSpaces } from './protected-paths.js';

const normal = (path: string) => {
  const parsed = normalizePath(path);
  if (parsed === undefined) throw new Error(`not a path: ${path}`);
  return parsed;
};

describe('protected paths', () => {
  it('covers repository internals, environment files, key material and cloud credentials, at any depth and in any case', () => {
    const isProtected = createProtectedPathMatcher();
    for (const path of [
      '.git/config',
      'vendor/lib/.git/config',
      'sub/.git',
      '.GIT/HEAD',
      '.Env',
      'app/.env.production',
      'certs/server.pem',
      'deploy/tls.KEY',
      'home/.ssh/id_rsa',
      'keys/id_ed25519_sk.pub',
      'id_ecdsa',
      '.config/gcloud/application_default_credentials.json',
      '.azure/msal_token_cache.json',
      '.git-credentials',
      '.docker/config.json',
      '.toolgate/policy.json',
      '/home/me/.aws/credentials',
      '.git./config',
      '.claude/hooks/format.sh',
      'app/.claude/hooks',
    ]) {
      expect(isProtected(normal(path)), path).toBe(true);
    }
    for (const path of ['src/id_generator.ts', 'src/identity.ts', 'docs/keys.md', 'src/app.ts', 'environment.md', 'gitlab.yml']) expect(isProtected(normal(path)), path).toBe(false);
  });

  it('matches a path whose folder names hold a line break: a name may hold any byte but `/` and NUL', () => {
    const isProtected = createProtectedTextMatcher(['secrets/']);
    for (const path of ['nl\ndir/.env', 'a\rb/c\nd/.ssh/config', 'x\u2028y/id_rsa', 'a\nb/secrets/token', '.env\n']) expect(isProtected(path), JSON.stringify(path)).toBe(true);
    expect(isProtected('nl\ndir/app.ts')).toBe(false);
  });

  it('finds the literal every match of a glob must contain, and none where glob syntax could make that untrue', () => {
    expect(requiredLiteral('**/.git/**')).toBe('.git');
    expect(requiredLiteral('**/.claude/settings*.json')).toBe('settings');
    expect(requiredLiteral('**/id_{rsa,dsa}*')).toBe('id_');
    expect(requiredLiteral('**/*.toolgate-journal*')).toBe('.toolgate-journal');
    expect(requiredLiteral('secrets/[abc]x/**')).toBe('secrets');
    for (const glob of ['**/*', '**/{a,b}', '!secrets/**', '**/+(a|b)', 'a\\*b', '**/[ab]', 'a}b']) expect(requiredLiteral(glob), glob).toBeUndefined();
    // A `]` first in a class is one of its members: `[]ab]z` is `]z`, `az` or `bz`, and holds no `ab` (the test skipped `az`).
    expect(requiredLiteral('[]ab]z')).toBe('z');
    expect(requiredLiteral('x[!]ab]yz')).toBe('yz');
    expect(createProtectedTextMatcher(['[]ab]z', 'keys/[!]ab]*.pem'])('az')).toBe(true);
    expect(createProtectedTextMatcher(['[]ab]z', 'keys/[!]ab]*.pem'])('keys/x.pem')).toBe(true);
  });

  it('answers as the glob regexes alone would: the literal test only skips what cannot match', () => {
    const additions = ['secrets/', '*.p12', '/build/out', 'config/{prod,stage}/*.json', '**/*', 'x[0-9]y', '+(tmp|cache)', 'a\\*b'];
    const paths = ['src/app.ts', 'secrets/a', 'a/secrets/b', 'cert.P12', 'build/out/x', 'a/build/out', 'config/prod/db.json', 'config/dev/db.json', 'x5y', 'x/y', 'tmp', 'a*b', 'README.md'];
    for (const addition of additions) {
      const isProtected = createProtectedPathMatcher([addition]);
      const globs = [...DEFAULT_PROTECTED_PATHS, withChildren(gitignoreGlob(addition))].map((glob) => picomatch.makeRe(glob, { dot: true, nocase: true }));
      for (const path of paths) {
        const direct = globs.some((glob) => glob.test(path) || glob.test(`${path}/`));
        expect(isProtected(normal(path)), `${addition} on ${path}`).toBe(direct);
      }
    }
  });
});

describe('protectedLinkProbes', () => {
  it('spells a class opened by ! as a character it matches', () => {
    const additions = ['vault/[!_x]*.key', 'vault/[^a-z]*.pem', 'vault/[abc].txt'];
    const probes = protectedLinkProbes(additions);
    expect(probes.get('vault')).toEqual(['qx.key', '0x.pem', 'a.txt']);
    const matches = createProtectedTextMatcher(additions);
    for (const probe of probes.get('vault') ?? []) expect(matches(`vault/${probe}`), probe).toBe(true);
  });

  it('spells a range in braces as its first value', () => {
    const additions = ['vault/backup-{01..20}/key', 'vault/{a..f}{1..9}.txt'];
    const probes = protectedLinkProbes(additions);
    expect(probes.get('vault')).toEqual(['backup-01/key', 'a1.txt']);
    const matches = createProtectedTextMatcher(additions);
    for (const probe of probes.get('vault') ?? []) expect(matches(`vault/${probe}`), probe).toBe(true);
  });

  it('spells a range padded to its wider end as bash does, and a brace within a brace as its first value', () => {
    // `{1..010}` is 001 to 010: spelled 1, the probe named a file the glob does not match; `{old,{1..3}}` was spelled `{old,1}`.
    const additions = ['vault/{1..010}/key', 'vault/{old,{1..3}}.pem', 'vault/{{-05..5},x}.txt'];
    const probes = protectedLinkProbes(additions);
    expect(probes.get('vault')).toEqual(['001/key', 'old.pem', '-05.txt']);
    const matches = createProtectedTextMatcher(additions);
    for (const probe of probes.get('vault') ?? []) expect(matches(`vault/${probe}`), probe).toBe(true);
  });

  it('names, for each folder the list names files below, a path below it the matcher protects', () => {
    const probes = protectedLinkProbes(['src/secrets/*.json']);
    expect(probes.get('.claude')).toContain('settingsx.json');
    expect(probes.get('.config')).toEqual(expect.arrayContaining(['gcloud/x', 'fish/x']));
    expect(probes.get('gcloud')).toContain('x');
    expect(probes.get('src')).toContain('secrets/x.json');
    expect(probes.get('secrets')).toContain('x.json');
    // Joined to where such a link stands, a path to try is protected only where the pattern puts the folder.
    const matches = createProtectedTextMatcher(['src/secrets/*.json']);
    expect(matches('app/.claude/settingsx.json')).toBe(true);
    expect(matches('.config/gcloud/x')).toBe(true);
    expect(matches('gcloud/x')).toBe(false);
    expect(matches('src/secrets/x.json')).toBe(true);
    expect(matches('pkg/src/secrets/x.json')).toBe(false);
  });

  it('tries no path for a folder named only by a glob, nor below an extended glob', () => {
    const probes = protectedLinkProbes(['+(a|b)/c.txt', 'd*/e.txt']);
    expect(probes.has('+(a|b)')).toBe(false);
    expect(probes.has('d*')).toBe(false);
  });
});

describe('Windows spellings in linear time', () => {
  it('drops trailing dots and spaces as the regular expression did, and reads a long run at once', () => {
    for (const name of ['', '.', 'a.', 'a. .', '.git.', '. a', 'a . b ', '...']) expect(withoutTrailingDotsAndSpaces(name), name).toBe(name.replace(/[. ]+$/, ''));
    const matches = createProtectedTextMatcher([]);
    const started = performance.now();
    expect(matches(`.git${'. '.repeat(30_000)}x.`)).toBe(false);
    expect(matches('.git. ./config')).toBe(true);
    expect(performance.now() - started).toBeLessThan(200);
  });
});

describe('literalPathGlob', () => {
  it('escapes every glob character, so the pattern matches the one name it spells', () => {
    expect(literalPathGlob('servers/notes.mjs')).toBe('servers/notes.mjs');
    expect(literalPathGlob('srv/a+(b)*?[c]{d,e}!@#.mjs')).toBe('srv/a\\+\\(b\\)\\*\\?\\[c\\]\\{d,e\\}\\!\\@\\#.mjs');
    const matches = createProtectedTextMatcher([literalPathGlob('srv/[ab]+(x).mjs')]);
    expect(matches('srv/[ab]+(x).mjs')).toBe(true);
    expect(matches('srv/a.mjs')).toBe(false);
    expect(matches('srv/ax.mjs')).toBe(false);
  });
});
