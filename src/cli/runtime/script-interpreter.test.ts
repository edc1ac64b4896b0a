import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseShebang, scriptInterpreter } from './script-interpreter.js';

describe('parseShebang', () => {
  it('reads the program and the rest of the line as one argument, as Linux does', () => {
    expect(parseShebang('#!/usr/bin/env node\nconsole.log(1)\n')).toEqual({ interpreter: '/usr/bin/env', argument: 'node' });
    expect(parseShebang('#! \t/usr/bin/php  -q -d x=1 \t\n')).toEqual({ interpreter: '/usr/bin/php', argument: '-q -d x=1' });
    expect(parseShebang('#!/usr/bin/env -S deno run -A\n')).toEqual({ interpreter: '/usr/bin/env', argument: '-S deno run -A' });
    expect(parseShebang('#!/bin/sh')).toEqual({ interpreter: '/bin/sh', argument: undefined });
    // Linux keeps a carriage return: the program it looks for is `node\r`, and so is the one judged.
    expect(parseShebang('#!/usr/bin/env node\r\n')).toEqual({ interpreter: '/usr/bin/env', argument: 'node\r' });
  });

  it('reads a line with no line feed one byte short of the buffer, and ends the argument at a NUL, as the kernel does', () => {
    const padded = `#!/usr/bin/env${' '.repeat(255 - '#!/usr/bin/env'.length - 'lua5.4'.length)}lua5.4\r`;
    expect(padded.indexOf('\r')).toBe(255);
    expect(parseShebang(`${padded}\nrequire("cjson")\n`)).toEqual({ interpreter: '/usr/bin/env', argument: 'lua5.4' });
    expect(parseShebang('#!/usr/bin/env lua5.4\u0000 -e x\n')).toEqual({ interpreter: '/usr/bin/env', argument: 'lua5.4' });
    // A program's name the buffer cuts short: the kernel starts nothing.
    expect(parseShebang(`#!${'/x'.repeat(200)}`)).toBeUndefined();
  });

  it('finds none in a compiled program, a script without the line, or an empty line', () => {
    for (const text of ['\u007fELF\u0002\u0001', 'console.log(1)\n', ' #!/bin/sh\n', '#!\n', '#! \t\n', '']) expect(parseShebang(text), JSON.stringify(text)).toBeUndefined();
  });
});

describe('scriptInterpreter', () => {
  it('reads a regular file, and neither waits on a named pipe nor reads a folder', () => {
    const folder = mkdtempSync(join(tmpdir(), 'toolgate-shebang-'));
    try {
      writeFileSync(join(folder, 'server.lua'), '#!/usr/bin/lua5.4\nprint(1)\n');
      expect(scriptInterpreter(join(folder, 'server.lua'))).toEqual({ interpreter: '/usr/bin/lua5.4', argument: undefined });
      execFileSync('mkfifo', [join(folder, 'pipe')]);
      expect(scriptInterpreter(join(folder, 'pipe'))).toBeUndefined();
      mkdirSync(join(folder, 'dir'));
      expect(scriptInterpreter(join(folder, 'dir'))).toBeUndefined();
      expect(scriptInterpreter(join(folder, 'missing'))).toBeUndefined();
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
