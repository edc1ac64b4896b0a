import { describe, expect, it } from 'vitest';
import { ToolPolicyError } from '../../core/internal.js';
import { buildChildEnv, gitHardeningEnv } from './build-child-env.js';

const hardening = gitHardeningEnv('/opt/toolgate/bin/toolgate-git-diff');

function pinned(env: Readonly<Record<string, string>>): Map<string, string> {
  const pairs = new Map<string, string>();
  for (let index = 0; index < Number(env.GIT_CONFIG_COUNT); index += 1) pairs.set(env[`GIT_CONFIG_KEY_${index}`] as string, env[`GIT_CONFIG_VALUE_${index}`] as string);
  return pairs;
}

describe('gitHardeningEnv', () => {
  it('pins submodule recursion off for every git the child starts', () => {
    expect(Object.fromEntries(pinned(hardening))).toMatchObject({
      'submodule.recurse': 'false',
      'fetch.recurseSubmodules': 'false',
      'diff.ignoreSubmodules': 'dirty',
      'diff.submodule': 'short',
      'status.submoduleSummary': 'false',
      'init.templateDir': '',
    });
  });
});

describe('buildChildEnv', () => {
  const options = { systemPath: ['/usr/bin', '/bin'], home: '/home/t', set: {}, tool: 'run_command', gitHardening: hardening };

  // Each of these, declared by a tool the allow list admits, would name a program git runs or undo a pin.
  it.each(['GIT_EDITOR', 'GIT_SEQUENCE_EDITOR', 'GIT_PROXY_COMMAND', 'GIT_MAN_VIEWER', 'GIT_TEMPLATE_DIR', 'GIT_ALLOW_PROTOCOL', 'GIT_CONFIG_PARAMETERS', 'GIT_PAGER'])(
    'refuses %s even when the allow list names it',
    (name) => {
      const refused = (() => {
        try {
          return buildChildEnv({ ...options, allow: [name], declared: { [name]: '/workspace/payload.sh' } });
        } catch (caught) {
          return caught;
        }
      })();
      expect(refused).toBeInstanceOf(ToolPolicyError);
      expect((refused as ToolPolicyError).reason).toBe('env_not_allowed');
    },
  );

  it('drops them from the host’s fixed values too, and keeps an ordinary variable', () => {
    const env = buildChildEnv({ ...options, set: { GIT_EDITOR: 'vi', GIT_TEMPLATE_DIR: '/tmp/t', CI: '1' }, allow: ['GREETING'], declared: { GREETING: 'hi' } });
    expect(env.GIT_EDITOR).toBeUndefined();
    expect(env.GIT_TEMPLATE_DIR).toBeUndefined();
    expect(env.CI).toBe('1');
    expect(env.GREETING).toBe('hi');
    expect(pinned(env).get('core.hooksPath')).toBe('/dev/null');
  });
});
