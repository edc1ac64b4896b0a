import { parse as parseToml } from 'smol-toml';
import { importClaudeSettings, importGeminiPolicies, parseSettingsJson, type GeminiPolicyTier, type PolicyRule } from '../../core/internal.js';
import { CliError } from '../cli-error.js';
import { policyImportScope, type PolicyImportEntry, type PolicyImportScope } from './policy-import-scope.js';
import { readPolicyImport } from './read-policy-import.js';

export interface ImportedPolicyFile {
  readonly rules: readonly PolicyRule[];
  /** Every stricter or left-out mapping, naming the rule. */
  readonly warnings: readonly string[];
  /** The hex SHA-256 of the bytes the rules come from: what `policy.imports[].sha256` pins. */
  readonly sha256: string;
  readonly scope: PolicyImportScope;
}

const GEMINI_TIER: Readonly<Record<PolicyImportScope, GeminiPolicyTier>> = { user: 'user', project: 'workspace' };

/**
 * One policy file's rules, as a gateway loads them under `policy.imports`
 * and as `toolgate policy import` prints them: the same reading for both, so
 * what a person pins is what runs. The file is read once, its scope decided
 * by where it really is (`policyImportScope`). A path rule keeps `~/` as
 * written: the policy engine names the home directory, and a deny or ask
 * there also matches the literal spelling. A person can switch the gateway's
 * mode and any agent may call it: no one Gemini CLI session is the one
 * governed (`anySession`).
 */
export async function importPolicyFile(entry: PolicyImportEntry, home: string): Promise<ImportedPolicyFile> {
  const file = entry.path;
  const { text, sha256 } = await readPolicyImport(file);
  const scope = await policyImportScope(entry, home);
  const imported =
    entry.from === 'claude'
      ? importClaudeSettings([{ scope, settings: parseSettingsJson(text, (problem) => new CliError('config', `Policy import ${file} ${problem}.`)), file }])
      : importGeminiPolicies([{ tier: GEMINI_TIER[scope], document: parsedToml(text, file), file }], { anySession: true });
  return { rules: imported.rules, warnings: imported.warnings, sha256, scope };
}

function parsedToml(text: string, file: string): unknown {
  try {
    return parseToml(text);
  } catch {
    throw new CliError('config', `Policy import ${file} is not valid TOML.`);
  }
}
