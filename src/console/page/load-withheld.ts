import type { WithheldDefinition } from '../console-types.js';
import { api, byId, el } from './dom.js';

// The whole offered definition is shown, and the approval names its digest: the server pins it only if that is still what is offered.
export function loadWithheld(): void {
  void api<WithheldDefinition[]>('/api/withheld').then((list) => {
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
        return el(
          'div',
          { class: 'card', 'data-withheld': w.name },
          el('h3', { text: w.name }),
          el('div', { class: 'meta', text: `server ${w.server} · tool ${w.tool} · ${w.reason === 'changed' ? 'changed since it was approved' : 'not approved yet'}` }),
          offered.title ? el('p', { text: offered.title }) : null,
          el('h4', { text: 'Description' }),
          el('pre', { class: 'description', text: offered.description || '' }),
          el('h4', { text: 'Input schema' }),
          el('pre', { text: JSON.stringify(offered.inputSchema, null, 2) }),
          offered.outputSchema ? el('h4', { text: 'Output schema' }) : null,
          offered.outputSchema ? el('pre', { text: JSON.stringify(offered.outputSchema, null, 2) }) : null,
          el('div', { class: 'meta', text: `offered sha256 ${w.digest}${w.pinnedDigest ? ` · approved before: ${w.pinnedDigest}` : ''}` }),
          problem,
          el('div', { class: 'actions' }, el('button', { class: 'approve', text: 'Approve this definition', onclick: approve })),
        );
      }),
    );
    byId('withheld-empty').hidden = list.length > 0;
  });
}
