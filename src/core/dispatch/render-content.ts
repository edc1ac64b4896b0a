import type { DispatchState, StageResult } from './dispatch-state.js';

/**
 * The model-facing text of a result before bounding: content a stage already
 * wrote, the error's message for a failure, else the tool's own rendering
 * of the value (`renderContent` on the definition) or the default.
 */
export function contentOf(state: DispatchState, result: StageResult): string {
  if (result.content !== undefined) return result.content;
  if (!result.ok) return result.error.message;
  const render = state.tool?.definition.renderContent;
  if (render === undefined) return renderContent(result.value);
  try {
    const text: unknown = render(result.value);
    if (typeof text === 'string') return text;
    console.warn(`toolgate: renderContent of tool "${state.tool?.key ?? ''}" returned no string; rendered as JSON`);
  } catch (error) {
    console.warn(`toolgate: renderContent of tool "${state.tool?.key ?? ''}" threw; rendered as JSON`, error);
  }
  return renderContent(result.value);
}

/** A value's JSON text at least this long is kept for the call's journal and server (`DispatchState.valueJson`). */
const KEPT_FROM = 8 * 1024;

/**
 * Stage 17's content: `contentOf`, and when that is the value's own JSON
 * (rendered by default, long enough to matter), that text kept on the call
 * as `valueJson`, for the journal that records the value and a server that
 * sends it as its structured result, so neither builds it again. Kept only
 * for this call and only from this rendering, after every hook that could
 * change the value in place; not where the tool's `finalizeContent` still
 * sees the value, nor where the rendering fell back (a bigint, a cycle).
 */
export function finalContentOf(state: DispatchState, result: StageResult): string {
  const value: unknown = result.ok ? result.value : undefined;
  const definition = state.tool?.definition;
  if (result.content !== undefined || typeof value !== 'object' || value === null || definition?.renderContent !== undefined) return contentOf(state, result);
  const text = plainJson(value);
  if (text === undefined) return renderWithBigints(value);
  if (text.length >= KEPT_FROM && definition?.finalizeContent === undefined) state.valueJson = text;
  return text;
}

/** The text a model would see for a value, before bounding: strings as-is, everything else as JSON. */
export function renderContent(value: unknown): string {
  switch (typeof value) {
    case 'string':
      return value;
    case 'undefined':
      return '';
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      // For a finite number String() is exactly what JSON.stringify writes, minus the call.
      if (Number.isFinite(value)) return String(value);
      break;
  }
  return plainJson(value) ?? renderWithBigints(value);
}

/** `JSON.stringify` of a value (empty where it writes nothing), or undefined where it throws. */
function plainJson(value: unknown): string | undefined {
  try {
    return JSON.stringify(value) ?? '';
  } catch {
    return undefined;
  }
}

/** The slow path, only after a plain stringify threw (a bigint, a cycle). */
function renderWithBigints(value: unknown): string {
  try {
    return JSON.stringify(value, (_key, entry: unknown) => (typeof entry === 'bigint' ? entry.toString() : entry)) ?? '';
  } catch {
    return '[result could not be rendered as JSON]';
  }
}
