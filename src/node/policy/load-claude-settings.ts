import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ConfigurationError } from '../../core/errors/tool-errors.js';
import { parseSettingsJson } from '../../core/policy/parse-settings-json.js';
import { importClaudeSettings, type ClaudeSettingsFile, type ClaudeSettingsScope, type ImportedPolicy } from '../../core/policy/import-claude-settings.js';

export interface LoadClaudeSettingsOptions {
  readonly projectRoot: string;
  readonly home: string;
  /** Default `/etc/claude-code/managed-settings.json` (Linux). */
  readonly managedFile?: string;
}

/** The settings files of every Claude Code scope, in precedence order. */
export function claudeSettingsFiles(options: LoadClaudeSettingsOptions): readonly { readonly scope: ClaudeSettingsScope; readonly file: string }[] {
  return [
    { scope: 'managed', file: options.managedFile ?? '/etc/claude-code/managed-settings.json' },
    { scope: 'local', file: join(options.projectRoot, '.claude', 'settings.local.json') },
    { scope: 'project', file: join(options.projectRoot, '.claude', 'settings.json') },
    { scope: 'user', file: join(options.home, '.claude', 'settings.json') },
  ];
}

/**
 * Read Claude Code settings from every scope and import their permissions.
 * Missing files are skipped; a file that exists but cannot be parsed
 * throws, so a broken file can never silently drop its denials.
 */
export async function loadClaudeSettings(options: LoadClaudeSettingsOptions): Promise<ImportedPolicy> {
  const files: ClaudeSettingsFile[] = [];
  for (const { scope, file } of claudeSettingsFiles(options)) {
    const text = await readOptional(file);
    if (text === undefined) continue;
    files.push({ scope, settings: parseSettingsJson(text, (problem) => new ConfigurationError(`claude.${scope}`, `settings file ${problem}`)), file });
  }
  return importClaudeSettings(files, { home: options.home });
}

export async function readOptional(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' || (error as NodeJS.ErrnoException).code === 'ENOTDIR') return undefined;
    throw new ConfigurationError('policy', 'a settings file exists but cannot be read');
  }
}
