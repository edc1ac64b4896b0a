import { boundText, fitsWithoutEncoding, truncationMarker, type BoundedText } from '../bounding/bound-text.js';
import type { ToolResultLimits } from '../host/tool-host.js';
import { eventBase, type DispatchState } from './dispatch-state.js';

/** The limits for one call: the context's, over the registry's. */
export function contentLimits(state: DispatchState): ToolResultLimits {
  const own = state.context.limits;
  const base = state.snapshot.limits.content;
  if (own === undefined) return base;
  return { maxBytes: own.maxBytes ?? base.maxBytes, maxLines: own.maxLines ?? base.maxLines };
}

/**
 * Stage 17: bound the model-facing content by bytes and lines, UTF-8 safe,
 * in O(limit). Over the limit the model gets a preview, an explicit marker
 * and the spill handle from the host's output store; with no store it is
 * still bounded and the marker says nothing was stored. Content that fits
 * is returned synchronously: the plain path does not pay for an await.
 */
export function boundContent(state: DispatchState, text: string): string | Promise<string> {
  const limits = contentLimits(state);
  // Plainly fits by its bytes (a UTF-16 unit is at most 3 UTF-8 bytes): only its lines are counted, nothing is encoded.
  if (fitsWithoutEncoding(text, limits) === true) return text;
  const bounded = boundText(text, limits);
  if (!bounded.truncated) return text;
  return spillAndMark(state, text, limits, bounded);
}

async function spillAndMark(state: DispatchState, text: string, limits: ToolResultLimits, bounded: BoundedText): Promise<string> {
  const store = state.snapshot.host.outputStore;
  if (store !== undefined) {
    try {
      state.spill = await store.spill(text, limits, state.context.signal, state.context.runId);
    } catch (error) {
      // A failed spill must not fail the call: the model still gets a bounded preview.
      console.warn('toolgate: spilling output failed', error);
    }
  }
  const spill = state.spill;
  if (spill !== undefined && state.observed && state.snapshot.bus.has('output-spilled')) {
    state.snapshot.bus.emit('output-spilled', { ...eventBase(state), handle: spill.handle, bytes: spill.bytes });
  }
  return bounded.preview + truncationMarker(bounded, text.length, spill);
}
