import { createHash } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { ConfigurationError } from '../../core/errors/tool-errors.js';
import { parseJsonOrThrow } from '../../core/errors/parse-json-or-throw.js';
import { compileRule } from '../../core/policy/compile-rule.js';
import type { PolicyRule, PolicyRuleObject } from '../../core/policy/rule-types.js';
import type { PersistRule } from '../../core/policy/create-confirm.js';
import { writeFileAtomic } from '../fs/write-file-atomic.js';

/** The toolgate policy file: `{ "rules": [ … ] }` (object or string-form rules). */
export interface PolicyFile {
  readonly rules: readonly PolicyRule[];
}

/**
 * `<project>/.toolgate/policy.json`, `<home>/.config/toolgate/policy.json`,
 * and in the user's home the digests of the project files this user's
 * toolgate wrote (`trusted`): a project file arrives with a cloned
 * repository too, and only one this user wrote may approve anything.
 */
export function policyFilePaths(options: { readonly projectRoot: string; readonly home: string }): { readonly project: string; readonly user: string; readonly trusted: string } {
  const config = join(options.home, '.config', 'toolgate');
  return { project: join(options.projectRoot, '.toolgate', 'policy.json'), user: join(config, 'policy.json'), trusted: join(config, 'trusted-project-policies.json') };
}

/** Whether `file`'s bytes are the ones this user's toolgate last wrote there (recorded in `trustedFile`). */
export async function isTrustedPolicyFile(file: string, trustedFile: string): Promise<boolean> {
  let current: string;
  try {
    current = await readFile(file, 'utf8');
  } catch {
    return true; // Missing: nothing to trust or distrust.
  }
  const recorded = (await readTrustRecord(trustedFile))[resolve(file)];
  return recorded === sha256(current);
}

async function readTrustRecord(trustedFile: string): Promise<Record<string, string>> {
  try {
    const parsed: unknown = JSON.parse(await readFile(trustedFile, 'utf8'));
    return typeof parsed === 'object' && parsed !== null ? Object.fromEntries(Object.entries(parsed).filter((entry): entry is [string, string] => typeof entry[1] === 'string')) : {};
  } catch {
    return {};
  }
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
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
  const parsed = parseJsonOrThrow(text, () => new ConfigurationError('policyFile', 'is not valid JSON'));
  const rules = typeof parsed === 'object' && parsed !== null ? (parsed as { rules?: unknown }).rules : undefined;
  if (!Array.isArray(rules)) throw new ConfigurationError('policyFile', 'must be an object with a "rules" array');
  return { rules: rules as PolicyRule[] };
}

/**
 * Append one rule, atomically: the rule is compiled first (a bad rule is
 * never written), the file is rewritten to a temporary sibling with mode
 * 0600 and renamed over the original. Returns the text written.
 */
export async function appendPolicyRule(file: string, rule: PolicyRuleObject): Promise<string> {
  compileRule(rule, 0);
  const current = await readPolicyFile(file);
  const next = `${JSON.stringify({ ...current, rules: [...current.rules, rule] }, null, 2)}\n`;
  await writeAtomically(file, next);
  return next;
}

async function writeAtomically(file: string, next: string): Promise<void> {
  await mkdir(dirname(file), { recursive: true, mode: 0o700 });
  await writeFileAtomic(file, next, { mode: 0o600, fsync: true });
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
      const next = queue.then(async () => {
        // Appending to a project file this user did not write would make its shipped allows trusted: drop them first.
        if (file === paths.project && !(await isTrustedPolicyFile(file, paths.trusted))) await dropAllows(file);
        const written = await appendPolicyRule(file, rule);
        if (file === paths.project) await recordTrusted(paths.trusted, file, written);
      });
      queue = next.catch(() => undefined);
      return next;
    },
  };
}

/** Remember the digest of a project policy file this user's toolgate just wrote. */
async function recordTrusted(trustedFile: string, file: string, written: string): Promise<void> {
  const record = await readTrustRecord(trustedFile);
  record[resolve(file)] = sha256(written);
  await writeAtomically(trustedFile, `${JSON.stringify(record, null, 2)}\n`);
}

/** Keep only the rules that narrow (deny, ask) of a policy file this user did not write. */
async function dropAllows(file: string): Promise<void> {
  const current = await readPolicyFile(file);
  const narrowing = current.rules.filter((rule) => rule.decision !== 'allow');
  await writeAtomically(file, `${JSON.stringify({ ...current, rules: narrowing }, null, 2)}\n`);
}
