import { mkdir, open, readFile, rename, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { ConfigurationError } from '../../core/errors/tool-errors.js';
import { compileRule } from '../../core/policy/compile-rule.js';
import type { PolicyRule, PolicyRuleObject } from '../../core/policy/rule-types.js';
import type { PersistRule } from '../../core/policy/create-confirm.js';

/** The toolgate policy file: `{ "rules": [ … ] }` (object or string-form rules). */
export interface PolicyFile {
  readonly rules: readonly PolicyRule[];
}

/** `<project>/.toolgate/policy.json` and `<home>/.config/toolgate/policy.json`. */
export function policyFilePaths(options: { readonly projectRoot: string; readonly home: string }): { readonly project: string; readonly user: string } {
  return { project: join(options.projectRoot, '.toolgate', 'policy.json'), user: join(options.home, '.config', 'toolgate', 'policy.json') };
}

/**
 * Read a policy file. A missing file is empty; a malformed one throws (a
 * reload that cannot read its rules must not silently drop denials).
 */
export async function readPolicyFile(file: string): Promise<PolicyFile> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { rules: [] };
    throw new ConfigurationError('policyFile', 'cannot be read');
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new ConfigurationError('policyFile', 'is not valid JSON');
  }
  const rules = typeof parsed === 'object' && parsed !== null ? (parsed as { rules?: unknown }).rules : undefined;
  if (!Array.isArray(rules)) throw new ConfigurationError('policyFile', 'must be an object with a "rules" array');
  return { rules: rules as PolicyRule[] };
}

/**
 * Append one rule, atomically: the rule is compiled first (a bad rule is
 * never written), the file is rewritten to a temporary sibling with mode
 * 0600 and renamed over the original.
 */
export async function appendPolicyRule(file: string, rule: PolicyRuleObject): Promise<void> {
  compileRule(rule, 0);
  const current = await readPolicyFile(file);
  const next = `${JSON.stringify({ ...current, rules: [...current.rules, rule] }, null, 2)}\n`;
  await mkdir(dirname(file), { recursive: true, mode: 0o700 });
  const temporary = `${file}.${process.pid}.${Date.now().toString(36)}.tmp`;
  const handle = await open(temporary, 'wx', 0o600);
  try {
    await handle.writeFile(next, 'utf8');
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await rename(temporary, file);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}

/**
 * The `remember.persist` for `createConfirm`: `always` approvals become
 * allow rules in the project or user policy file, with the matching source.
 */
export function createRulePersister(options: { readonly projectRoot: string; readonly home: string }): { readonly persist: PersistRule } {
  const paths = policyFilePaths(options);
  // Serialise writes so two approvals never interleave their read-modify-write.
  let queue: Promise<void> = Promise.resolve();
  return {
    persist(rule) {
      const file = rule.source === 'user' ? paths.user : paths.project;
      const next = queue.then(() => appendPolicyRule(file, rule));
      queue = next.catch(() => undefined);
      return next;
    },
  };
}
