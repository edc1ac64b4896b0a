// The engine: definitions, registry, dispatch, policy seam, approval, bounding,
// untrusted mark, events, errors, receipts and provider projection.
// Adding a name to the public root is an API decision.
export * from './internal.js';
