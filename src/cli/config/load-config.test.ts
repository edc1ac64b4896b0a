import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CliError } from '../cli-error.js';
import { runInit } from '../commands/init-command.js';
import { loadConfig } from './load-config.js';

const dir = () => mkdtempSync(join(tmpdir(), 'toolgate-config-'));

describe('loadConfig', () => {
  it('applies the embedded default when there is no file', () => {
    const cwd = dir();
    const config = loadConfig(cwd);
    expect(config.file).toBeUndefined();
    expect(config.workspace).toBe(cwd);
    expect(config.scope).toBe('read-only');
    expect(config.mode).toBe('ask');
    expect(config.journal.path).toBe(join(cwd, '.toolgate/journal.db'));
  });

  it('loads the file init writes (JSON with comments) and it validates', () => {
    const cwd = dir();
    const { file } = runInit(cwd);
    const config = loadConfig(cwd);
    expect(config.file).toBe(file);
    expect(config.policy.allowedCommands).toEqual([['git', 'status'], ['git', 'diff']]);
    expect(config.policy.deny).toEqual(['Read(./.env*)']);
    expect(() => runInit(cwd)).toThrow(CliError);
  });

  it('refuses a __proto__ key, whose members would take effect unseen', () => {
    for (const text of ['{ "__proto__": { "scope": "full", "mode": "auto" } }', '{ "policy": { "constructor": {} } }']) {
      const dir = mkdtempSync(join(tmpdir(), 'toolgate-config-'));
      writeFileSync(join(dir, 'toolgate.config.json'), text);
      expect(() => loadConfig(dir)).toThrow(/key is not allowed/);
    }
  });

  it('accepts YAML', () => {
    const cwd = dir();
    writeFileSync(join(cwd, 'toolgate.config.yaml'), 'scope: workspace-write\nmode: accept-edits\npolicy:\n  allowedDomains: [api.github.com]\n');
    const config = loadConfig(cwd);
    expect(config.scope).toBe('workspace-write');
    expect(config.policy.allowedDomains).toEqual(['api.github.com']);
  });

  it('names the line and column of a YAML file that does not parse', () => {
    const cwd = dir();
    const file = join(cwd, 'toolgate.config.yml');
    writeFileSync(file, 'scope: workspace-write\npolicy:\n  allowedDomains: [api.github.com\n');
    expect(() => loadConfig(cwd)).toThrow(new RegExp(`^${file}:\\d+:\\d+: invalid YAML \\(`));
  });

  it('names the file, the JSON path, what was expected and what was found', () => {
    const cwd = dir();
    writeFileSync(join(cwd, 'toolgate.config.json'), JSON.stringify({ scope: 'everything', policy: { allowedDomains: 'github.com' }, consle: {} }));
    let error: unknown;
    try {
      loadConfig(cwd);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(CliError);
    const message = (error as CliError).message;
    expect((error as CliError).exitCode).toBe(2);
    expect(message).toContain(join(cwd, 'toolgate.config.json'));
    expect(message).toContain('$.scope: expected one of ["read-only","workspace-write","full"]; found string "everything"');
    expect(message).toContain('$.policy.allowedDomains: expected a value of type array; found string "github.com"');
    expect(message).toContain('no property "consle" (unknown key)');
  });

  it('refuses a server time limit beyond an hour and a byte bound beyond a safe integer when the file is read, naming the server', () => {
    const cwd = dir();
    const server = { command: 'true', timeoutMs: 1e12, connectTimeoutMs: 3_600_001, maxTotalTimeoutMs: 2 ** 31, maxMessageBytes: 1e300 };
    writeFileSync(join(cwd, 'toolgate.config.json'), JSON.stringify({ servers: { up: server }, limits: { maxUnreadBytes: 1e300 } }));
    expect(() => loadConfig(cwd)).toThrow(CliError);
    let message = '';
    try {
      loadConfig(cwd);
    } catch (caught) {
      message = (caught as CliError).message;
    }
    for (const key of ['timeoutMs', 'connectTimeoutMs', 'maxTotalTimeoutMs', 'maxMessageBytes']) expect(message).toContain(`$.servers.up.${key}: expected must be <=`);
    expect(message).toContain('$.limits.maxUnreadBytes: expected must be <=');
    writeFileSync(join(cwd, 'toolgate.config.json'), JSON.stringify({ servers: { up: { command: 'true', timeoutMs: 3_600_000, maxMessageBytes: 2 ** 40 } } }));
    expect(loadConfig(cwd).servers?.up?.timeoutMs).toBe(3_600_000);
  });

  it('trusts no client for elicitation and lets approvals wait 600 s by default; reads both from the file', () => {
    expect(loadConfig(dir())).toMatchObject({ elicitation: { trustedClients: [] }, approvals: { timeoutSeconds: 600 } });
    const cwd = dir();
    writeFileSync(join(cwd, 'toolgate.config.json'), JSON.stringify({ elicitation: { trustedClients: ['claude-code', '*'] }, approvals: { timeoutSeconds: 30 } }));
    expect(loadConfig(cwd)).toMatchObject({ elicitation: { trustedClients: ['claude-code', '*'] }, approvals: { timeoutSeconds: 30 } });
  });

  it('refuses a malformed elicitation trust list or approval timeout, naming the key', () => {
    const cases: [object, string][] = [
      [{ elicitation: { trustedClients: 'claude-code' } }, '$.elicitation.trustedClients: expected a value of type array; found string "claude-code"'],
      [{ elicitation: { trustedClients: [''] } }, '$.elicitation.trustedClients.0: expected must NOT have fewer than 1 characters'],
      [{ elicitation: { trusted: ['*'] } }, '$.elicitation: expected no property "trusted" (unknown key)'],
      [{ elicitation: true }, '$.elicitation: expected a value of type object; found boolean true'],
      [{ approvals: { timeoutSeconds: 0 } }, '$.approvals.timeoutSeconds: expected must be >= 1; found number 0'],
      [{ approvals: { timeoutSeconds: 1.5 } }, '$.approvals.timeoutSeconds: expected a value of type integer; found number 1.5'],
    ];
    for (const [config, expected] of cases) {
      const cwd = dir();
      writeFileSync(join(cwd, 'toolgate.config.json'), JSON.stringify(config));
      expect(() => loadConfig(cwd)).toThrow(expected);
    }
  });

  it('reads the sandbox mask walk bounds, and refuses one that would let nothing be walked', () => {
    const cwd = dir();
    writeFileSync(join(cwd, 'toolgate.config.json'), JSON.stringify({ limits: { maskWalkEntries: 500_000, maskWalkMilliseconds: 5000 } }));
    expect(loadConfig(cwd)).toMatchObject({ limits: { maskWalkEntries: 500_000, maskWalkMilliseconds: 5000 } });
    writeFileSync(join(cwd, 'toolgate.config.json'), JSON.stringify({ limits: { maskWalkEntries: 0 } }));
    expect(() => loadConfig(cwd)).toThrow('$.limits.maskWalkEntries: expected must be >= 1; found number 0');
  });

  it('reads the spill stores\' budgets, and refuses a budget that is not a whole number of bytes', () => {
    const cwd = dir();
    writeFileSync(join(cwd, 'toolgate.config.json'), JSON.stringify({ limits: { maxSpillBytes: 1_048_576, maxMediaStoreBytes: 16_777_216 } }));
    expect(loadConfig(cwd)).toMatchObject({ limits: { maxSpillBytes: 1_048_576, maxMediaStoreBytes: 16_777_216 } });
    writeFileSync(join(cwd, 'toolgate.config.json'), JSON.stringify({ limits: { maxMediaStoreBytes: -1 } }));
    expect(() => loadConfig(cwd)).toThrow('$.limits.maxMediaStoreBytes: expected must be >= 0; found number -1');
    writeFileSync(join(cwd, 'toolgate.config.json'), JSON.stringify({ limits: { maxSpillBytes: 1.5 } }));
    expect(() => loadConfig(cwd)).toThrow('$.limits.maxSpillBytes');
  });

  it('reports a syntax error with line and column', () => {
    const cwd = dir();
    writeFileSync(join(cwd, 'toolgate.config.json'), '{\n  "scope": "read-only",\n  "mode": \n}');
    expect(() => loadConfig(cwd)).toThrow(/toolgate\.config\.json:4:1: invalid JSON/);
  });
});
