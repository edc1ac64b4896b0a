import type { ApprovalMode } from '../policy/policy-snapshot-types.js';
import type { ApprovalSession, ToolApprovalRequest } from '../policy/approval-types.js';
import { shortSessionId } from '../policy/short-session-id.js';
import { quoteArgv, showUnprintable, type DisplayedPath, type RunnerCodeShown } from './display-action.js';
import type { ResolvedPathFlag } from './resolved-action.js';

/**
 * A block's lines are cut at line feeds alone, as the console draws them and
 * as a tool's view marks them (an edit's `-`/`+`): any other line break (a
 * carriage return, U+0085, U+2028, U+2029) is written out where it stands.
 * Split there too, a U+2028 in an edit's new text began a line of its own
 * with no `+`, and a payload spelled `- require(…)` after it read as a line
 * the edit removed, while node, for which U+2028 ends a line, ran it.
 */
const LINE_BREAK = '\n';

const FLAG_TEXT: Readonly<Record<ResolvedPathFlag, string>> = {
  protected: 'protected',
  link: 'through a symlink',
  outside: 'outside the workspace',
  new: 'new file',
  hardlink: 'hard-linked',
};

const MODE_TEXT: Readonly<Record<ApprovalMode, string>> = {
  ask: 'Mode: ask — every governed call asks',
  'accept-edits': 'Mode: accept-edits — edits inside the workspace run without asking; anything else asks',
  auto: 'Mode: auto — what a rule allows runs without asking; anything else asks',
  plan: 'Mode: plan — nothing runs',
};

/**
 * An approval request as plain text lines, for a terminal or an MCP
 * client's elicitation: the tool and agent; why it asks (the rule's text
 * and source, a protected path, the risk, the mode); where the call really
 * acts (real paths with their flags and the spelling beneath, the whole argv
 * quoted, executable and cwd, method and full URL, the MCP server, tool and
 * arguments, the OS action); what the tool shows of it; the arguments; and
 * how many values are masked. Every line is one line: a value cannot start
 * a line of its own, and unprintable characters are written `⟨U+XXXX⟩`.
 * Nothing is cut: a person approves what they were shown, so a channel that
 * cannot show it all (an MCP client's elicitation past its length) does not
 * ask. Cutting here hid the end of a write: a 42nd line, or a command past
 * the 240th character of one, ran approved and unseen.
 */
export function describeApproval(request: ToolApprovalRequest): string[] {
  const lines = [`Tool: ${showUnprintable(request.toolName)}${request.action === undefined ? '' : ` (${request.action})`} · agent ${showUnprintable(request.agent ?? '—')}`];
  if (request.session !== undefined) lines.push(`Asked by: ${sessionText(request.session)}`);
  for (const reason of approvalReasonLines(request)) lines.push(`Why: ${reason}`);
  const target = request.target;
  if (target !== undefined) {
    pathLines(lines, target.command !== undefined ? 'Path' : target.access === 'write' ? 'Writes' : 'Reads', target.files);
    if (target.command !== undefined) {
      lines.push(`Command: ${quoteArgv(target.command.argv)}`);
      if (target.command.executable !== undefined) lines.push(`  executable: ${showUnprintable(target.command.executable)}`);
      lines.push(`  cwd: ${showUnprintable(target.command.cwd)}`);
      pathLines(lines, 'Argument path', target.command.paths ?? []);
      if (target.command.code !== undefined) lines.push(showUnprintable(runnerCodeNotice(target.command.code)));
    }
    if (target.http !== undefined) lines.push(`Request: ${showUnprintable(target.http.method)} ${showUnprintable(target.http.url)}`);
    if (target.mcp !== undefined) {
      lines.push(`MCP: server ${showUnprintable(target.mcp.server)}${target.mcp.tool === undefined ? '' : ` · tool ${showUnprintable(target.mcp.tool)}`}`);
      block(lines, 'Arguments', target.mcp.arguments);
      if (target.mcp.cut !== undefined) lines.push(cutNotice(target.mcp.cut));
    }
    if (target.os !== undefined) {
      lines.push(`OS action: ${showUnprintable(target.os.action)}`);
      if (target.os.text !== undefined) block(lines, 'Text', target.os.text);
    }
    if (target.search !== undefined) lines.push(`Search: ${showUnprintable(target.search.query)}${target.search.host === undefined ? '' : ` · via ${showUnprintable(target.search.host)}`}`);
  }
  const view = request.view;
  if (view?.subtitle !== undefined) lines.push(showUnprintable(view.subtitle));
  // A command's argv is above, element by element; the tool's own rendering of it joins them and would blur them.
  if (view?.body !== undefined && target?.command === undefined) block(lines, 'Content', view.body);
  if (target?.mcp === undefined) lines.push(`Arguments: ${showUnprintable(argumentsText(request.arguments))}`);
  if (request.masked > 0) lines.push(maskedNotice(request.masked));
  return lines;
}

/** Each path under `label`, where it really is with its flags, and the spelling beneath when that differs. */
function pathLines(lines: string[], label: string, files: readonly DisplayedPath[]): void {
  for (const file of files) {
    lines.push(`${label}: ${showUnprintable(file.path)}${file.flags.length === 0 ? '' : `  [${file.flags.map((flag) => FLAG_TEXT[flag]).join(', ')}]`}`);
    if (file.requested !== undefined) lines.push(`  requested as: ${showUnprintable(file.requested)}`);
  }
}

/** Why the call reaches a person, one reason a line. */
function approvalReasonLines(request: Pick<ToolApprovalRequest, 'reasons' | 'why' | 'action'>): string[] {
  const { reasons } = request;
  const lines: string[] = [];
  const asking = reasons.rules.filter((rule) => rule.decision === 'ask');
  if (reasons.reason === 'protected_path' || reasons.protectedPath) lines.push('Protected path — never approved automatically, never remembered');
  if (reasons.reason === 'risk') lines.push(reasons.risk === undefined ? 'Risk at or above approveAtRisk' : `Risk ${reasons.risk} ≥ approveAtRisk`);
  if (reasons.reason === 'classifier') lines.push('The auto-mode classifier did not decide');
  if (reasons.reason === 'governed') lines.push(`Governed action${request.action === undefined ? '' : ` (${request.action})`}`);
  if (reasons.reason === 'rule' && asking.length === 0) lines.push('Asked by a policy rule');
  if (!KNOWN_REASONS.has(reasons.reason)) lines.push(`${request.why === 'hook' ? 'Asked by a pre-execute hook' : 'Asked'}: ${showUnprintable(reasons.reason)}`);
  for (const rule of reasons.rules) {
    const text = `\`${showUnprintable(rule.rule ?? rule.id)}\` (${showUnprintable(rule.source)})`;
    lines.push(rule.decision === 'ask' ? `Asked by rule ${text}` : `Rule ${text} matched: ${rule.decision}`);
  }
  if (reasons.mode !== undefined) lines.push(MODE_TEXT[reasons.mode]);
  return lines;
}

/** What a card says when values are masked: it cannot be told from a call that differs only there, so it is never remembered. */
function maskedNotice(masked: number): string {
  return `${masked} ${masked === 1 ? 'value' : 'values'} masked (shown as [redacted]): approving this call is never remembered`;
}

/**
 * What a card says of a runner's code: the file it runs is bound to this
 * approval (a change before the command starts refuses it), and what that
 * code runs in turn is not, which no approval of the command can bind. A
 * runner started inside a shell string or by a program toolgate does not
 * read is bound to none of its code, and the card says that too, as it says
 * when the command runs commands toolgate did not read at all.
 */
export function runnerCodeNotice(code: RunnerCodeShown): string {
  const notices: string[] = [];
  if (code.programs.length > 0) {
    const runners = code.programs.join(', ');
    const files = code.files.length === 0 ? 'no file of it exists yet' : code.files.join(', ');
    const members = code.members === true ? '; the workspaces it selects run their own package.json, bound only where an option names its folder (npm -w packages/a), not where it names a package, a filter or every workspace (npm --workspaces, pnpm --filter or -r, yarn workspace, bun --filter)' : '';
    notices.push(
      code.cut === true
        ? `${runners} reads its code from more files than are listed (${files}, …): none of them is bound to this approval, and the command counts as naming a protected path`
        : `${runners} runs the code its file holds (${files}): that file is bound to this approval, and a change to it before the command starts refuses it${members}; what that code runs in turn (a script it calls, a module it imports, a file it includes) is not bound`,
    );
  }
  if (code.unbound !== undefined && code.unbound.length > 0) {
    notices.push(`${code.unbound.join(', ')}, started inside a shell string or by a program toolgate does not read, runs the code its file holds (package.json, a makefile), which is not bound to this approval: a change to it before the command starts runs`);
  }
  if (code.unread === true) {
    notices.push('toolgate could not read every command this one runs (a shell string nested too deep, or past what it reads): a runner among them (npm, make, …) runs the code its file holds, which is not bound to this approval');
  }
  return notices.join('. ');
}

/** What a card says when arguments are cut short: the call carries them whole, and what is not shown runs too. */
export function cutNotice(cut: number): string {
  return `${cut} ${cut === 1 ? 'value' : 'values'} in the arguments cut short (marked "more" or [nested]): the call carries ${cut === 1 ? 'it' : 'them'} whole, unseen`;
}

const KNOWN_REASONS: ReadonlySet<string> = new Set(['governed', 'rule', 'risk', 'protected_path', 'classifier']);

/** A multi-line value, indented under its label, so no line of it can pass for a line of the card. */
function block(lines: string[], label: string, text: string): void {
  lines.push(`${label}:`);
  for (const line of text.split(LINE_BREAK)) lines.push(`  ${showUnprintable(line, true)}`);
}

function argumentsText(value: unknown): string {
  try {
    return JSON.stringify(value) ?? '';
  } catch {
    return '[arguments]';
  }
}

/**
 * Which client asked, so a person can tell two apart: what it declared of
 * itself (self-declared, hostile: written out as any other value) and the
 * first characters of its session id. A session approval covers that session only.
 */
function sessionText(session: ApprovalSession): string {
  const client = session.client === undefined ? 'a client that declared no name' : `client ${showUnprintable(session.client.name)} ${showUnprintable(session.client.version)}`;
  return `${client} · session ${showUnprintable(shortSessionId(session.id))}`;
}
