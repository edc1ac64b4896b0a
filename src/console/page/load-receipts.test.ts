import { describe, expect, it } from 'vitest';
import type { ToolReceipt } from '../console-types.js';
import { targetText } from './load-receipts.js';

const withArgv = (argv: string[]): ToolReceipt => ({ target: { files: [], command: { argv, cwd: '.' } } }) as unknown as ToolReceipt;

describe('targetText', () => {
  it('writes a command as an argv a person reads back into the same elements', () => {
    expect(targetText(withArgv(['sh', '-c', 'a; b']))).toBe("sh -c 'a; b'");
    expect(targetText(withArgv(['sh', '-c', 'a;', 'b']))).toBe("sh -c 'a;' b");
    // A control or a direction override is escaped, never drawn.
    expect(targetText(withArgv(['echo', 'x\u202Ey']))).toBe("echo $'x\\u202ey'");
  });
});
