/** An abort's reason as words for an upstream's `notifications/cancelled`. A caller may abort with any value, one that turns into no text among them. */
export function abortReasonText(reason: unknown): string {
  try {
    return reason instanceof Error ? reason.message : String(reason);
  } catch {
    return 'cancelled';
  }
}
