import { ConfigurationError } from '../errors/tool-errors.js';
import { claudeCodeToolTargets } from './claude-code-tools.js';
import { isToolName } from './tool-name.js';

/** What translation did to one entry. */
export interface ToolNameDiagnostic {
  /** `dropped`: an unknown name left out (lenient). `widened`: an arg-spec stripped to its bare name. */
  readonly kind: 'dropped' | 'widened';
  /** The entry as written, clipped to 128 characters. */
  readonly entry: string;
  readonly message: string;
}

export interface TranslateToolNamesOptions {
  /**
   * Whether one of our names exists here (registered or reserved). A
   * Claude Code name then expands only to the targets that exist (`Read`
   * without `read_media` registered → `read_file`); when none exists it is
   * unknown. In lenient mode our own names are checked too.
   */
  readonly known?: (name: string) => boolean;
}

const ARG_SPEC = /^([^()]+)\(([^]*)\)$/;

/**
 * Translate an allow or deny list written with Claude Code names (`Read`,
 * `Bash(git status)`, `mcp__github__create_issue`) into our names, for
 * `registry.scope(agent, { restrict })`. Our own names pass as they are.
 *
 * - `strict` (configuration loaded at start-up): an unknown name passes
 *   through unchanged, so the mask rejects it loudly with its own error.
 * - `lenient` (skill activation, user- or model-driven data): an unknown name
 *   is dropped with a diagnostic; when nothing survives the result is
 *   `undefined`, so a bad name never ends a session. For an allow list the
 *   caller decides what `undefined` means; "no mask" widens to every tool.
 *
 * An arg-spec (`Bash(git status)`) is stripped to the bare name on purpose:
 * a mask gates names, so the entry widens to the whole tool (a `widened`
 * diagnostic says so). Argument-level rules belong to the policy. Output is
 * de-duplicated, in first-seen order. Never fuzzy: `read` is not `Read`.
 */
export function translateToolNames(names: readonly string[], mode: 'strict', onDiagnostic?: (diagnostic: ToolNameDiagnostic) => void, options?: TranslateToolNamesOptions): string[];
export function translateToolNames(names: readonly string[], mode: 'lenient', onDiagnostic?: (diagnostic: ToolNameDiagnostic) => void, options?: TranslateToolNamesOptions): string[] | undefined;
export function translateToolNames(
  names: readonly string[],
  mode: 'strict' | 'lenient',
  onDiagnostic?: (diagnostic: ToolNameDiagnostic) => void,
  options: TranslateToolNamesOptions = {},
): string[] | undefined {
  if (mode !== 'strict' && mode !== 'lenient') throw new ConfigurationError('translateToolNames mode', 'must be "strict" or "lenient"');
  // A lone string would otherwise be iterated character by character.
  if (!Array.isArray(names)) throw new ConfigurationError('translateToolNames names', 'must be an array');
  const out = new Set<string>();
  for (const raw of names as readonly unknown[]) {
    const entry = typeof raw === 'string' ? raw : String(raw);
    const shown = entry.slice(0, 128);
    const spec = ARG_SPEC.exec(entry);
    const bare = spec === null ? entry : (spec[1] ?? entry);
    const targets = typeof raw === 'string' ? resolve(bare, mode, options) : undefined;
    if (targets === undefined) {
      if (mode === 'strict') out.add(bare);
      else onDiagnostic?.({ kind: 'dropped', entry: shown, message: `"${shown}" is not a known tool name; it was left out` });
      continue;
    }
    if (spec !== null) onDiagnostic?.({ kind: 'widened', entry: shown, message: `"${shown}" gates the whole "${bare}" tool: argument patterns do not apply to tool masks` });
    for (const target of targets) out.add(target);
  }
  if (mode === 'lenient' && out.size === 0) return undefined;
  return [...out];
}

function resolve(name: string, mode: 'strict' | 'lenient', options: TranslateToolNamesOptions): readonly string[] | undefined {
  const expanded = claudeCodeToolTargets(name);
  // In strict mode our own names pass unchecked: the mask is what rejects them.
  if (expanded === undefined && (mode === 'strict' || options.known === undefined)) return isToolName(name) ? [name] : undefined;
  const targets = expanded ?? (isToolName(name) ? [name] : []);
  if (options.known === undefined) return targets;
  const known = targets.filter((target) => options.known?.(target) === true);
  return known.length > 0 ? known : undefined;
}
