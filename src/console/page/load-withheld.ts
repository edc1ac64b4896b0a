import type { WithheldReview } from '../console-types.js';
import { api, byId, el, visible } from './dom.js';
import { renderDiff } from './render-diff.js';
import { guardDecisions, whenSettled } from './settle-guard.js';

// What changed since the approval comes first, then the whole offered definition; the approval names its digest: the server pins it only if that is still what is offered.
export function loadWithheld(): void {
  void api<WithheldReview[]>('/api/withheld').then((list) => {
    byId('withheld').replaceChildren(
      ...list.map((w) => {
        const offered = w.offered;
        const problem = el('p', { class: 'error', hidden: '' });
        const approve = (): void => {
          void api<{ ok?: true; error?: string }>(`/api/withheld/${encodeURIComponent(w.name)}/approve`, { method: 'POST', body: JSON.stringify({ digest: w.digest }) }).then((answer) => {
            if (answer && answer.error) {
              problem.textContent = answer.error;
              problem.hidden = false;
            } else loadWithheld();
          });
        };
        const card = el(
          'div',
          { class: 'card', 'data-withheld': w.name },
          el('h3', { text: w.name }),
          // The server's own spelling of the name: a right-to-left override in it would turn the rest of the line around.
          el('div', { class: 'meta', text: `server ${visible(w.server)} · tool ${visible(w.tool)} · ${w.reason === 'changed' ? 'changed since it was approved' : 'not approved yet'}` }),
          changesOf(w),
          el(
            'details',
            { class: 'offered', ...(w.changes === undefined ? { open: '' } : {}) },
            el('summary', { text: 'The offered definition, whole' }),
            offered.title ? el('p', { text: visible(offered.title) }) : null,
            el('h4', { text: 'Description' }),
            // Stripped of hidden characters upstream unless the server says `stripHiddenCharacters: false`: then written out here.
            el('pre', { class: 'description', text: visible(offered.description || '', true) }),
            el('h4', { text: 'Input schema' }),
            el('pre', { text: visible(JSON.stringify(offered.inputSchema, null, 2), true) }),
            offered.outputSchema ? el('h4', { text: 'Output schema' }) : null,
            offered.outputSchema ? el('pre', { text: visible(JSON.stringify(offered.outputSchema, null, 2), true) }) : null,
            el('h4', { text: 'Annotations' }),
            el('pre', { class: 'annotations', text: offered.annotations ? visible(JSON.stringify(offered.annotations, null, 2), true) : '(none)' }),
          ),
          el('div', { class: 'meta', text: `offered sha256 ${w.digest}${w.pinnedDigest ? ` · approved before: ${w.pinnedDigest}` : ''}` }),
          problem,
          el('div', { class: 'actions' }, el('button', { class: 'approve', text: 'Approve this definition', onclick: whenSettled(approve) })),
        );
        // The list is drawn anew after every approval: the card that takes an approved one's place must not take its second click.
        guardDecisions(card);
        return card;
      }),
    );
    byId('withheld-empty').hidden = list.length > 0;
  });
}

/** The diff of the approved and the offered definition, or why there is none. */
function changesOf(w: WithheldReview): HTMLElement | null {
  if (w.changes !== undefined) return el('section', { class: 'changes' }, el('h4', { text: 'What changed since it was approved (− approved, + offered)' }), renderDiff(w.changes));
  if (w.uncompared === true) return el('p', { class: 'muted uncompared', text: 'Too large, or too unlike the approved definition, to be compared in time: it was not compared line by line. Read the offered definition whole below.' });
  if (w.reason === 'changed') return el('p', { class: 'muted', text: 'The approved definition was not kept (it was approved before toolgate kept definitions): compare by digest below.' });
  return null;
}
