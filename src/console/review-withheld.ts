import { structuredPatch } from 'diff';
import { canonicalJson } from '../core/internal.js';
import type { ReviewedDefinition, WithheldDefinition } from '../mcp/index.js';
import type { WithheldReview } from './console-types.js';

/** Above this, a definition is not compared line by line (the diff's cost grows with the product of the sizes); it is still shown whole. */
const MAX_COMPARED = 256 * 1024;

/**
 * The most time one comparison may take, on the gateway's one thread. A line
 * diff costs the lines times the lines that differ: two definitions of 12,000
 * lines each, every line changed, held the gateway and every client of it for
 * 20 s at each request of the list.
 */
const MAX_DIFF_MS = 250;

/** A kept definition too large, or too unlike the offered one, to compare line by line in time: both stay whole. */
export const UNCOMPARED = Symbol('uncompared');

/** Each withheld definition with what changed since it was approved, for the console and `toolgate mcp withheld`. */
export function reviewWithheld(list: readonly WithheldDefinition[]): WithheldReview[] {
  return list.map((entry) => {
    const changes = diffWithheldDefinition(entry);
    if (changes === undefined) return entry;
    return changes === UNCOMPARED ? { ...entry, uncompared: true } : { ...entry, changes };
  });
}

/**
 * What changed between the approved and the offered definition of a
 * withheld upstream tool, as a unified diff of their title, description,
 * schemas and annotations (`-` approved, `+` offered). Schemas are compared with their keys
 * sorted, as the digest sees them, so a reordering alone shows no line.
 * Undefined when there is nothing to compare with: never approved, or
 * approved before pins kept the definition; `UNCOMPARED` past the size or
 * the time a comparison may take.
 */
export function diffWithheldDefinition(entry: WithheldDefinition): string | typeof UNCOMPARED | undefined {
  if (entry.approved === undefined) return undefined;
  const approved = definitionText(entry.approved);
  const offered = definitionText(entry.offered);
  if (approved.length > MAX_COMPARED || offered.length > MAX_COMPARED) return UNCOMPARED;
  const patch = structuredPatch('approved', 'offered', approved, offered, entry.pinnedDigest ?? '', entry.digest, { context: 3, timeout: MAX_DIFF_MS });
  if (patch === undefined) return UNCOMPARED;
  return [
    `--- approved ${entry.pinnedDigest ?? ''}`.trimEnd(),
    `+++ offered ${entry.digest}`,
    ...patch.hunks.flatMap((hunk) => [`@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`, ...hunk.lines]),
  ].join('\n');
}

/** One definition as the lines a person compares: each part under its own heading. */
function definitionText(definition: ReviewedDefinition): string {
  return [
    `title: ${definition.title ?? '(none)'}`,
    'description:',
    ...definition.description.split('\n').map((line) => `  ${line}`),
    'input schema:',
    ...schemaLines(definition.inputSchema),
    'output schema:',
    ...(definition.outputSchema === undefined ? ['  (none)'] : schemaLines(definition.outputSchema)),
    // A change of hints alone (destructive to read-only) is a change of whether a trusted server's calls ask anyone.
    'annotations:',
    ...(definition.annotations === undefined ? ['  (none)'] : schemaLines(definition.annotations)),
  ].join('\n') + '\n';
}

function schemaLines(schema: unknown): string[] {
  return JSON.stringify(JSON.parse(canonicalJson(schema)), null, 2)
    .split('\n')
    .map((line) => `  ${line}`);
}
