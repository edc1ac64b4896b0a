import { describe, expect, it } from 'vitest';
import { actionDigestTarget } from './action-digest-target.js';
import { displayAction, quoteArgv, showUnprintable } from './display-action.js';
import { lexicalPath, resolveActionLexically } from './resolve-action-lexically.js';
import type { ResolvedAction, ResolvedPath } from './resolved-action.js';

const TOKEN = `ghp_${'a1B2c3D4e5'.repeat(4)}`;

describe('displayAction', () => {
  it('masks a secret in a path and only the secret: what follows it stays in view', () => {
    const display = displayAction(resolveActionLexically({ path: 'src/api_key=0000/../../.git/config' }, { fsWrite: true }));
    expect(display.files).toEqual([{ path: '.git/config', requested: 'src/api_key=[redacted]/../../.git/config', flags: [] }]);
    expect(display.masked).toBe(1);
    // A real path with a secret-named directory in it still names the file it ends in.
    const deep = displayAction(resolveActionLexically({ path: 'build/access_token=abcd1234/keys/id_rsa' }, { fsWrite: true }));
    expect(deep.files[0]?.path).toBe('build/access_token=[redacted]/keys/id_rsa');
    const windows = displayAction(resolveActionLexically({ path: 'src\\api_key=0000\\..\\..\\.git\\config' }, { fsWrite: true }));
    expect(windows.files[0]?.requested).toBe('src\\api_key=[redacted]\\..\\..\\.git\\config');
  });

  it('masks a URL token by token: the path and the other query parameters stay, credentials in it go', () => {
    const display = displayAction(resolveActionLexically({ url: `https://api.github.com/a/api_key=1234/delete?token=${TOKEN}&force=true`, method: 'DELETE' }, {}));
    expect(display.http?.url).toBe('https://api.github.com/a/api_key=[redacted]/delete?token=[redacted]&force=true');
    expect(display.masked).toBe(2);
    const userinfo = displayAction(resolveActionLexically({ url: 'https://me:hunter2hunter2@example.com/x' }, {}));
    expect(userinfo.http?.url).not.toContain('hunter2');
    expect(userinfo.masked).toBeGreaterThan(0);
  });
  it('never shows part of a secret that holds a `/`: a base64 value in a query is masked whole', () => {
    const secret = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';
    const action = resolveActionLexically({ url: `https://s3.example.com/bucket/key?aws_secret_access_key=${secret}&part=2`, method: 'PUT' }, {});
    const shown = displayAction(action);
    expect(shown.http?.url).toBe('https://s3.example.com/bucket/key?aws_secret_access_key=[redacted]&part=2');
    for (const piece of secret.split('/')) expect(JSON.stringify(shown)).not.toContain(piece);
    expect(shown.masked).toBe(1);
  });
});

/** `cat notes.md settings.txt backup.txt new.txt /etc/hosts`, as a host resolved its argument paths. */
function resolvedCat(settings: Partial<ResolvedPath> = {}): ResolvedAction {
  const argument = (requested: string, found: Partial<ResolvedPath> = {}): ResolvedPath => ({ ...lexicalPath(requested), ...found });
  return {
    resolvedBy: 'host',
    access: 'read',
    files: [lexicalPath('.')],
    command: {
      argv: ['cat', 'notes.md', 'settings.txt', 'backup.txt', 'new.txt', '/etc/hosts'],
      executable: '/usr/bin/cat',
      cwd: lexicalPath('.'),
      arguments: [
        argument('notes.md'),
        argument('settings.txt', { real: '.env', protected: true, linkTraversal: true, ...settings }),
        argument('backup.txt', { hardLinked: true }),
        argument('new.txt', { created: true }),
        argument('/etc/hosts', { outside: true }),
      ],
    },
  };
}

describe("a command's argument paths", () => {
  it('are shown where they really lead, with their flags, when they matter: protected, a link, outside, hard-linked; an ordinary or new file is left out', () => {
    expect(displayAction(resolvedCat()).command?.paths).toEqual([
      { path: '.env', requested: 'settings.txt', flags: ['protected', 'link'] },
      { path: 'backup.txt', flags: ['hardlink'] },
      { path: '/etc/hosts', flags: ['outside'] },
    ]);
    const ordinary = resolveActionLexically({ command: ['cat', 'notes.md'] }, {});
    expect(displayAction(ordinary).command).not.toHaveProperty('paths');
  });

  it('are bound by the action digest: the same argv leading elsewhere is another action', () => {
    const approved = JSON.stringify(actionDigestTarget(resolvedCat({ real: 'settings.txt', protected: false, linkTraversal: false })));
    expect(JSON.stringify(actionDigestTarget(resolvedCat({ real: 'settings.txt', protected: false, linkTraversal: false })))).toBe(approved);
    expect(JSON.stringify(actionDigestTarget(resolvedCat()))).not.toBe(approved);
  });
});

describe('quoteArgv', () => {
  it('reads back into the same argv: one element with a ; or spaces is one quoted element', () => {
    expect(quoteArgv(['sh', '-c', 'echo a; touch b'])).toBe("sh -c 'echo a; touch b'");
    expect(quoteArgv(['echo', "it's", ''])).toBe("echo 'it'\\''s' ''");
  });

  it("writes an element holding a control, a line break or a direction override as $'…', on one line", () => {
    expect(quoteArgv(['printf', 'a\nb', 'tab\there', '\u001b[2J'])).toBe("printf $'a\\nb' $'tab\\there' $'\\u001b[2J'");
    expect(quoteArgv(['cat', 'txt.\u202egnp'])).toBe("cat $'txt.\\u202egnp'");
    expect(quoteArgv(['echo', 'hi\u{E0041}\u3164'])).toBe("echo $'hi\\U000e0041\\u3164'");
    expect(quoteArgv(['echo', "back\\slash and 'quote'\n"])).toBe("echo $'back\\\\slash and \\'quote\\'\\n'");
  });
});

describe('showUnprintable', () => {
  it('writes controls, line breaks and invisible characters out, and keeps tabs only when asked', () => {
    expect(showUnprintable('.git/con\u202efig\r\n\u200b')).toBe('.git/con⟨U+202E⟩fig⟨U+000D⟩⟨U+000A⟩⟨U+200B⟩');
    // Tag characters (a text a model reads and a screen draws as nothing), a variation selector, a Hangul filler.
    expect(showUnprintable('ok\u{E0041}\u{E0020}\ufe0f\u3164\u{E0100}')).toBe('ok⟨U+E0041⟩⟨U+E0020⟩⟨U+FE0F⟩⟨U+3164⟩⟨U+E0100⟩');
    expect(showUnprintable('a\tb')).toBe('a⟨U+0009⟩b');
    expect(showUnprintable('a\tb', true)).toBe('a\tb');
    expect(showUnprintable('plain: ünïcode ✓')).toBe('plain: ünïcode ✓');
  });

  it('writes out what draws as a space but a shell reads as part of a word, and the marks that overlay the character before', () => {
    // `rm⠀-rf⠀/` reads as three words and is one; `/usr/bin⃒/x` shows a bar that is not a folder's.
    expect(showUnprintable('rm\u2800-rf\u2003/')).toBe('rm⟨U+2800⟩-rf⟨U+2003⟩/');
    expect(showUnprintable('a\u0338b\u20d2c\ufffc')).toBe('a⟨U+0338⟩b⟨U+20D2⟩c⟨U+FFFC⟩');
    // The no-break spaces of everyday text stay as they are.
    expect(showUnprintable('Prix\u00a0: 10\u202f€ 東京\u3000駅')).toBe('Prix\u00a0: 10\u202f€ 東京\u3000駅');
  });

  it.each([0x0600, 0x0605, 0x06dd, 0x070f, 0x0890, 0x0891, 0x08e2, 0xfff0, 0xfff8, 0x110bd, 0x110cd, 0x13430, 0x1343f, 0x1bca0, 0x1bca3, 0x1d173, 0x1d17a, 0xe01f0, 0xe0fff])(
    'writes out U+%s, a format character or default-ignorable code point the upstream-text scan removes too',
    (point) => {
      const hex = point.toString(16).toUpperCase().padStart(4, '0');
      expect(showUnprintable(`a${String.fromCodePoint(point)}b`)).toBe(`a⟨U+${hex}⟩b`);
      expect(quoteArgv([`a${String.fromCodePoint(point)}b`])).toBe(`$'a\\${point > 0xffff ? `U${hex.toLowerCase().padStart(8, '0')}` : `u${hex.toLowerCase()}`}b'`);
    },
  );
});
