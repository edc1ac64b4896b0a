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
  try {
    return JSON.stringify(value) ?? '';
  } catch {
    return renderWithBigints(value);
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
