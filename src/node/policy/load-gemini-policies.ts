import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { parse } from 'smol-toml';
import { ConfigurationError } from '../../core/errors/tool-errors.js';
import { importGeminiPolicies, type GeminiPolicyFile, type GeminiPolicyTier, type ImportedGeminiPolicy } from '../../core/policy/import-gemini-policies.js';
import { readOptional } from './load-claude-settings.js';

export interface LoadGeminiPoliciesOptions {
  readonly projectRoot: string;
  readonly home: string;
  /** Default `/etc/gemini-cli/policies` (Linux). */
  readonly systemDir?: string;
}

/** Every `*.toml` in the Gemini CLI policy directories, by tier. */
export async function loadGeminiPolicies(options: LoadGeminiPoliciesOptions): Promise<ImportedGeminiPolicy> {
  const directories: readonly { tier: GeminiPolicyTier; dir: string }[] = [
    { tier: 'admin', dir: options.systemDir ?? '/etc/gemini-cli/policies' },
    { tier: 'user', dir: join(options.home, '.gemini', 'policies') },
    { tier: 'workspace', dir: join(options.projectRoot, '.gemini', 'policies') },
  ];
  const files: GeminiPolicyFile[] = [];
  for (const { tier, dir } of directories) {
    for (const name of await listToml(dir)) {
      const file = join(dir, name);
      const text = await readOptional(file);
      if (text === undefined) continue;
      try {
        files.push({ tier, document: parse(text), file });
      } catch {
        throw new ConfigurationError(`gemini.${tier}`, 'policy file is not valid TOML');
      }
    }
  }
  return importGeminiPolicies(files);
}

/** The `*.toml` names in a Gemini CLI policy folder, sorted; none when it does not exist. A folder that cannot be read is refused. */
export async function listToml(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir)).filter((name) => name.endsWith('.toml')).sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' || (error as NodeJS.ErrnoException).code === 'ENOTDIR') return [];
    throw new ConfigurationError('gemini', 'a policy directory exists but cannot be read');
  }
}
