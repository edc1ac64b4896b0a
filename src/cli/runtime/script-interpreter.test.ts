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
