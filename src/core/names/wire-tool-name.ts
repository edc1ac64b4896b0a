/** Longest tool name every provider accepts (OpenAI, Anthropic and Gemini allow 64). */
export const MAX_WIRE_NAME_LENGTH = 64;

/**
 * The name a model sees and calls. Provider name rules forbid `@` and `.`,
 * so a versioned tool travels as `name__v1_2_0` (every character of the
 * version outside `[A-Za-z0-9]` becomes `_`). The registry resolves that
 * form back to exactly one registered version, and refuses a registry where
 * two tools would share a wire name.
 */
export function wireToolName(name: string, version: string | undefined): string {
  return version === undefined ? name : `${name}__v${version.replace(/[^A-Za-z0-9]/g, '_')}`;
}
