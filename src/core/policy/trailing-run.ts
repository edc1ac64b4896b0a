/**
 * Where `text` ends once the run of characters `inRun` takes at its end is
 * left off, found by one scan back. A regular expression anchored at the end
 * (`[. ]+$`, `[\r\n]+$`, `\s+$`) tries every start of such a run, in time the
 * square of its length: on a name, a path or a file a model or a repository
 * wrote, that held the gateway's one thread for minutes.
 */
export function trailingRunStart(text: string, inRun: (char: string) => boolean): number {
  let end = text.length;
  while (end > 0 && inRun(text[end - 1] as string)) end -= 1;
  return end;
}

/** `text` without the run of characters `inRun` takes at its end (`trailingRunStart`). */
export function withoutTrailingRun(text: string, inRun: (char: string) => boolean): string {
  const end = trailingRunStart(text, inRun);
  return end === text.length ? text : text.slice(0, end);
}
