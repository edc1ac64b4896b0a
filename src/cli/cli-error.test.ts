import { describe, expect, it } from 'vitest';
import { ConfigurationError, ToolgateError, ToolPolicyError } from '../core/internal.js';
import { CliError, EXIT_CODES, exitCodeOfError } from './cli-error.js';

describe('CLI errors and exit codes', () => {
  it('a CliError is a ToolgateError whose code gives its documented exit code', () => {
    const cases = [
      ['tool', 'EXECUTION_FAILED', 1],
      ['usage', 'CONFIGURATION_INVALID', 2],
      ['config', 'CONFIGURATION_INVALID', 2],
      ['denied', 'POLICY_DENIED', 3],
    ] as const;
    for (const [kind, code, exit] of cases) {
      const error = new CliError(kind, 'it failed');
      expect(ToolgateError.isInstance(error)).toBe(true);
      expect(error).toBeInstanceOf(ToolgateError);
      expect([kind, error.code, error.exitCode]).toEqual([kind, code, exit]);
      expect(error.exitCode).toBe(EXIT_CODES[kind]);
      expect(error.name).toBe('CliError');
    }
  });

  it('any toolgate error exits by its code: refused 3, the caller’s mistake 2, anything else 1', () => {
    expect(exitCodeOfError(new ToolPolicyError('run_command', 'rule_denied').code)).toBe(3);
    expect(exitCodeOfError('DENIED_BY_USER')).toBe(3);
    expect(exitCodeOfError(new ConfigurationError('policy.rules', 'must be an array').code)).toBe(2);
    expect(exitCodeOfError('UNKNOWN_TOOL')).toBe(2);
    expect(exitCodeOfError('ARGS_INVALID')).toBe(2);
    for (const code of ['EXECUTION_FAILED', 'TOOL_TIMEOUT', 'TOOL_UNAVAILABLE', 'OUTPUT_INVALID', 'REPLAY_MISS', 'ABORTED'] as const) expect(exitCodeOfError(code)).toBe(1);
  });
});
