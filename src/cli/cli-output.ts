import { terminalJson, terminalLine, terminalText } from './terminal-text.js';

/**
 * How the CLI speaks: JSON for scripts (`--json`), short human text
 * otherwise; progress only on a terminal, silent in pipes and CI. Whatever
 * it writes passes `terminalText` or `terminalJson`: the text of a result,
 * a message or a label may hold what a model, an upstream or a journal row
 * chose, and a terminal would obey its control characters.
 */
export interface CliOutput {
  readonly json: boolean;
  readonly debug: boolean;
  /** The command's result: JSON as is, or human text from `render`. */
  result(value: unknown, render?: (value: unknown) => string): void;
  /** Human-only information, on stderr, never in `--json` mode. */
  info(message: string): void;
  progress(label: string, total?: number): Progress;
}

export interface Progress {
  tick(done: number): void;
  done(message?: string): void;
}

const SILENT: Progress = { tick: () => undefined, done: () => undefined };

export function createCliOutput(options: { json: boolean; debug: boolean; stdout?: NodeJS.WritableStream; stderr?: NodeJS.WriteStream | NodeJS.WritableStream }): CliOutput {
  const stdout = options.stdout ?? process.stdout;
  const stderr = options.stderr ?? process.stderr;
  const tty = 'isTTY' in stderr && stderr.isTTY === true && !options.json;
  return {
    json: options.json,
    debug: options.debug,
    result(value, render) {
      stdout.write(options.json ? `${terminalJson(value, 2)}\n` : `${terminalText(render === undefined ? String(value) : render(value))}\n`);
    },
    info(message) {
      if (!options.json) stderr.write(`${terminalText(message)}\n`);
    },
    progress(name, total) {
      if (!tty) return SILENT;
      const label = terminalLine(name);
      let last = 0;
      return {
        tick(done) {
          const now = Date.now();
          if (now - last < 80) return;
          last = now;
          const share = total === undefined || total === 0 ? '' : ` ${Math.floor((done / total) * 100)}%`;
          stderr.write(`\r${label}… ${done}${total === undefined ? '' : `/${total}`}${share}`);
        },
        done(message) {
          // The carriage return and the erase are the CLI's own: they clear its progress line.
          stderr.write(`\r\u001b[2K${message === undefined ? `${label}: done` : terminalText(message)}\n`);
        },
      };
    },
  };
}

/** A plain text table for human output; every cell one line, its control characters written out. */
export function formatTable(header: readonly string[], body: readonly (readonly string[])[]): string {
  const rows = body.map((row) => row.map(terminalLine));
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)));
  const line = (cells: readonly string[]): string => cells.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join('  ').trimEnd();
  return [line(header), line(widths.map((width) => '-'.repeat(width))), ...rows.map(line)].join('\n');
}
