import type { PolicyDescription, RememberedSession } from '../console-types.js';
import { api, byId, el, visible } from './dom.js';
import { sessionText } from './session-text.js';

const list = (values: readonly (string | readonly string[])[] | undefined): string =>
  values === undefined || values.length === 0 ? 'none' : values.map((value) => (typeof value === 'string' ? value : JSON.stringify(value))).join(', ');

/** The Policy view: every rule in force with its source, then the floor no rule lifts. */
export function loadPolicy(): void {
  void api<PolicyDescription>('/api/policy').then((p) => {
    const rules = p.rules ?? [];
    const table = el(
      'table',
      { class: 'rules' },
      el('thead', {}, el('tr', {}, el('th', { text: 'rule' }), el('th', { text: 'decision' }), el('th', { text: 'source' }), el('th', { text: 'priority' }), el('th', { text: 'id' }))),
      el(
        'tbody',
        {},
        ...rules.map((rule) =>
          el('tr', { 'data-rule': rule.id }, el('td', {}, el('code', { text: visible(rule.rule) })), el('td', { text: rule.decision }), el('td', { text: rule.source + (rule.band === 'managed' ? ' (managed)' : '') }), el('td', { text: String(rule.priority) }), el('td', { text: visible(rule.id) })),
        ),
      ),
    );
    const floor = el('dl', { class: 'floor' });
    const row = (k: string, v: string): void => {
      floor.appendChild(el('dt', { text: k }));
      floor.appendChild(el('dd', {}, el('code', { text: visible(v) })));
    };
    row('mode', p.mode ?? '—');
    row('scope', p.scope ?? '—');
    if (p.workspace !== undefined) row('workspace', p.workspace);
    row('allowed commands', list(p.allowedCommands));
    row('allowed command globs', list(p.allowedCommandGlobs));
    row('allowed domains', list(p.allowedDomains));
    row('protected paths', `${list(p.protectedPaths)} (and the built-in ones)`);
    row('MCP servers', list(p.mcpServers));
    byId('policy').replaceChildren(
      el('p', { class: 'muted', text: `policy v${p.version} · ${rules.length} ${rules.length === 1 ? 'rule' : 'rules'} in force` }),
      rules.length > 0 ? table : el('p', { class: 'empty', text: 'No rule is in force: the mode and the floor decide.' }),
      el('h3', { text: 'The floor' }),
      floor,
      el('h3', { text: 'Remembered approvals' }),
      renderRemembered(p.remembered ?? []),
      ...(p.warnings ?? []).map((warning) => el('p', { class: 'error', text: visible(warning) })),
      el('details', { class: 'arguments' }, el('summary', { text: 'As JSON' }), el('pre', { text: JSON.stringify(p, null, 2) })),
    );
  });
}

/** What is remembered now, per session: an approval for the session stands in for the calls of that session only. */
function renderRemembered(sessions: readonly RememberedSession[]): HTMLElement {
  if (sessions.length === 0) return el('p', { class: 'empty', text: 'Nothing is remembered: no call was approved for a session.' });
  return el(
    'ul',
    { class: 'remembered' },
    ...sessions.map((group) =>
      el(
        'li',
        { 'data-session': group.session?.id ?? '' },
        el('div', { text: group.session ? sessionText(group.session) : 'calls that named no session' }),
        el('ul', {}, ...group.approvals.map((approval) => el('li', {}, el('code', { text: visible(`${approval.tool} ${approval.kind} ${approval.value}`) }), el('span', { class: 'muted', text: ` · ${approval.scope} · ${approval.mode}` })))),
      ),
    ),
  );
}
