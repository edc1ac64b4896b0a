import { describe, expect, it } from 'vitest';
import { createPolicy } from './create-policy.js';
import { npmCommand, npmCommandReadings, npmCommandsAt } from './npm-command-readings.js';

describe('npmCommand', () => {
  it('reads a word as npm does: the command, an alias, camelCase, a unique prefix; nothing for an unknown or ambiguous one', () => {
    expect(npmCommand('exec')).toBe('exec');
    expect(npmCommand('x')).toBe('exec');
    expect(npmCommand('exe')).toBe('exec');
    expect(npmCommand('rm')).toBe('uninstall');
    expect(npmCommand('unl')).toBe('uninstall');
    expect(npmCommand('run-script')).toBe('run');
    expect(npmCommand('runScript')).toBe('run');
    expect(npmCommand('installTest')).toBe('install-test');
    expect(npmCommand('install-cl')).toBe('ci');
    expect(npmCommand('insta')).toBe('install');
    // `ex` begins exec, explain and explore; `install-` four names.
    expect(npmCommand('ex')).toBeUndefined();
    expect(npmCommand('install-')).toBeUndefined();
    expect(npmCommand('silent')).toBeUndefined();
    expect(npmCommand('')).toBeUndefined();
  });
});

describe('npmCommandReadings', () => {
  it('reads the command wherever npm’s options put it, under its name and each alias', () => {
    expect(npmCommandReadings(['npm', 'x', '-c', 'touch p'])).toEqual([
      ['npm', 'exec', '-c', 'touch p'],
      ['npm', 'x', '-c', 'touch p'],
    ]);
    expect(npmCommandReadings(['/usr/bin/npm', '--loglevel=silent', 'exe', 'pkg'])).toContainEqual(['npm', 'exec', 'pkg']);
    // A word after an option that may take it as its value is read both ways.
    expect(npmCommandsAt(['npm', '--loglevel', 'info', 'exec', 'pkg']).map(({ command }) => command)).toEqual(['view', 'exec']);
    expect(npmCommandsAt(['npm', '--', 'x', 'pkg']).map(({ command }) => command)).toEqual(['exec']);
    // The first word no option may take is the command: nothing after it is.
    expect(npmCommandsAt(['npm', 'install', 'exec']).map(({ command }) => command)).toEqual(['install']);
    expect(npmCommandReadings(['npm', 'frobnicate', 'exec'])).toEqual([]);
  });

  it('a deny or ask of an npm command holds under every spelling npm runs it by; an allow reads the words as typed', () => {
    const rule = (id: string, text: string, decision: 'allow' | 'ask' | 'deny') => ({ id, rule: text, decision, source: 'project' as const });
    const execSpellings = ['npm exec -c x', 'npm x -c x', 'npm exe -c x', 'npm --loglevel=silent exec -c x', 'npm -s x -c x'];
    const policy = createPolicy({
      mode: 'auto',
      // Exact entries: the floor, which refuses every spelling of npm exec under a glob, lets them through to the rules.
      allowedCommands: execSpellings,
      allowedCommandGlobs: ['npm *'],
      rules: [rule('npm', 'Bash(npm:*)', 'allow'), rule('exec', 'Bash(npm exec:*)', 'deny'), rule('rm', 'Bash(npm rm:*)', 'deny'), rule('run', 'Bash(npm run-script:*)', 'ask')],
    });
    const decide = (command: string[]): string => policy.explain({ tool: 'run_command', target: { command } }).decision.kind;
    for (const command of execSpellings) {
      const explained = policy.explain({ tool: 'run_command', target: { command: command.split(' ') } });
      expect(explained.decision.kind, command).toBe('deny');
      expect(explained.rules.find((rule) => rule.winner)?.id, command).toBe('exec');
    }
    // The rule names an alias: every spelling of the command it names is denied.
    expect(decide(['npm', 'uninstall', 'left-pad'])).toBe('deny');
    expect(decide(['npm', 'r', 'left-pad'])).toBe('deny');
    expect(decide(['npm', 'run', 'build'])).toBe('ask');
    expect(decide(['npm', 'rum', 'build'])).toBe('ask');
    expect(decide(['npm', 'test'])).toBe('allow');
  });
});
