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

/** A value's JSON text at least this long is kept for a server that sends the value too (`renderedJsonText`). */
const KEPT_FROM = 8 * 1024;

/**
 * The JSON text `renderContent` wrote for a large object value, kept while
 * the value lives: a gateway that sends the same value as its structured
 * result measures and writes that text instead of building it again, which
 * for a 64 KiB result costs as much as rendering it did.
 */
const rendered = new WeakMap<object, string>();

/** The JSON text `renderContent` wrote for `value` (that very object), when it was long enough to keep. */
export function renderedJsonText(value: object): string | undefined {
  return rendered.get(value);
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
  let text: string;
  try {
    text = JSON.stringify(value) ?? '';
  } catch {
    return renderWithBigints(value);
  }
  if (text.length >= KEPT_FROM && typeof value === 'object' && value !== null) rendered.set(value, text);
  return text;
}

/** The slow path, only after a plain stringify threw (a bigint, a cycle). */
function renderWithBigints(value: unknown): string {
  try {
    return JSON.stringify(value, (_key, entry: unknown) => (typeof entry === 'bigint' ? entry.toString() : entry)) ?? '';
  } catch {
    return '[result could not be rendered as JSON]';
  }
}
