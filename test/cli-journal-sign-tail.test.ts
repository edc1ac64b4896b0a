// `toolgate audit sign-tail` through the built binary: rows written while journal signing was off, which a signed
// journal refuses to link onto, are named, then signed over on an operator's --yes, and the gateway journals again.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from './support/spawn-cli.js';

function workspace(): string {
  const dir = mkdtempSync(join(tmpdir(), 'toolgate-cli-sign-tail-'));
  writeFileSync(join(dir, 'notes.md'), 'hello\n');
  return dir;
}

const signing = (dir: string, sign: boolean): void => writeFileSync(join(dir, 'toolgate.config.json'), JSON.stringify({ journal: { sign } }));
const read = (dir: string) => runCli(['call', 'read_file', '{"path":"notes.md"}'], dir);

describe('toolgate audit sign-tail', () => {
  it('names the rows written while signing was off, signs them over only with --yes, and the journal links onto them again', async () => {
    const dir = workspace();
    signing(dir, true);
    expect((await read(dir)).code).toBe(0);
    signing(dir, false);
    expect((await read(dir)).code).toBe(0);
    signing(dir, true);

    // Signing on again, the journal refuses the unsigned rows it ends on: the call is not journaled, so it is refused.
    const refused = await read(dir);
    expect(refused.code).not.toBe(0);
    expect(`${refused.stdout}${refused.stderr}`).toContain("ends on a row that is not signed with the journal's key");

    // The operator's list of unresolved claims says its rows end on one the key did not sign.
    const listed = await runCli(['audit', 'unresolved'], dir);
    expect(listed.code).toBe(0);
    expect(listed.stderr).toContain('A row written without the key can hide a claim from this list');

    const named = await runCli(['--json', 'audit', 'sign-tail'], dir);
    expect(named.code).toBe(0);
    const tail = (JSON.parse(named.stdout) as { signed: boolean; unsignedTail: { from: number; through: number; head: string } }).unsignedTail;
    expect(JSON.parse(named.stdout)).toMatchObject({ signed: false, unsignedTail: { from: expect.any(Number), through: expect.any(Number), head: expect.stringMatching(/^[0-9a-f]{64}$/) } });
    expect((await read(dir)).code).not.toBe(0);

    const human = await runCli(['audit', 'sign-tail'], dir);
    expect(human.stdout).toContain(`rows #${tail.from}–#${tail.through}`);
    expect(human.stdout).toContain(`toolgate audit sign-tail --yes --head ${tail.head}`);

    // --yes signs over the rows the operator checked: it needs the hash they end on.
    const unbound = await runCli(['audit', 'sign-tail', '--yes'], dir);
    expect(unbound.code).toBe(2);
    expect(unbound.stderr).toContain('--head HASH');
    expect((await runCli(['audit', 'sign-tail', '--head', tail.head], dir)).code).toBe(2);
    // Not a hash the rows end on (one of a row appended or rewritten since): refused, nothing signed over.
    const stale = await runCli(['audit', 'sign-tail', '--yes', '--head', 'f'.repeat(64)], dir);
    expect(stale.code).not.toBe(0);
    expect(`${stale.stdout}${stale.stderr}`).toContain('rows were appended or rewritten since');
    expect((await read(dir)).code).not.toBe(0);

    const signed = await runCli(['audit', 'sign-tail', '--yes', '--head', tail.head], dir);
    expect(signed.code).toBe(0);
    expect(signed.stdout).toContain(`signed over rows #${tail.from}–#${tail.through}`);
    expect((await read(dir)).code).toBe(0);
    const verified = await runCli(['audit', 'verify'], dir);
    expect(verified.code).toBe(0);
    expect(verified.stdout).toContain('chain verified');
    expect((await runCli(['audit', 'sign-tail'], dir)).stdout).toContain('nothing to sign over');
    expect((await runCli(['audit', 'unresolved'], dir)).stderr).not.toContain('warning');
  }, 120_000);

  it('refuses without journal signing', async () => {
    const dir = workspace();
    signing(dir, false);
    expect((await read(dir)).code).toBe(0);
    const result = await runCli(['audit', 'sign-tail', '--yes', '--head', 'f'.repeat(64)], dir);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('journal.sign is off');
  }, 60_000);
});
