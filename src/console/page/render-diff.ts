import { el, visible } from './dom.js';

/** A unified diff, one coloured line per span. */
export function renderDiff(text: string): HTMLPreElement {
  const pre = el('pre', { class: 'diff' });
  for (const line of text.split('\n')) {
    const cls = line[0] === '+' && !line.startsWith('+++') ? 'diff-add' : line[0] === '-' && !line.startsWith('---') ? 'diff-del' : line.startsWith('@@') ? 'diff-hunk' : '';
    pre.appendChild(el('span', { class: cls, text: `${visible(line, true)}\n` }));
  }
  return pre;
}
