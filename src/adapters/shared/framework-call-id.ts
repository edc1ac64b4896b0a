/**
 * The call id toolgate dispatches a framework's tool call under. Frameworks
 * pass on the id the model wrote, and a model that writes its own may write
 * an empty one, which toolgate refuses as the caller's mistake by throwing:
 * one such call ended the application's whole `generateText` or `run`, the
 * other calls of the reply with it, and left no receipt. It gets an id of
 * its own instead, and yields one outcome and one receipt like any call.
 * The framework keeps its approvals by the empty id, for every call that
 * writes it, so an adapter never asks the framework about such a call and
 * takes no framework approval for it (`isAnonymous`).
 */
export function dispatchCallId(frameworkId: string | undefined, framework: string): string {
  return isAnonymous(frameworkId) ? `${framework}-${crypto.randomUUID()}` : frameworkId;
}

/** Whether the model gave the call no id of its own. */
export function isAnonymous(frameworkId: string | undefined): frameworkId is '' | undefined {
  return frameworkId === undefined || frameworkId === '';
}
