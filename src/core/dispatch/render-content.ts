/** The text a model would see for a value, before bounding: strings as-is, everything else as JSON. */
export function renderContent(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined) return '';
  try {
    return JSON.stringify(value, (_key, entry: unknown) => (typeof entry === 'bigint' ? entry.toString() : entry)) ?? '';
  } catch {
    return '[result could not be rendered as JSON]';
  }
}
