import type { Stream } from 'node:stream';
import { redactSecrets } from '../core/internal.js';
import { scanHiddenCharacters } from './scan-hidden-characters.js';

/** What is kept of an upstream's stderr: enough to see why it failed, never its whole output. */
const MAX_TAIL_BYTES = 4096;
const MAX_TAIL_LINES = 20;
/** A configured value shorter than this (`1`, `true`) is no secret, and masked it would blot out ordinary words. */
const MIN_MASKED_VALUE = 6;

export interface StderrTail {
  /** The last lines the upstream wrote, secrets masked; empty when it wrote nothing. */
  text(): string;
}

/**
 * Reads an upstream's stderr to its end (so a chatty server never blocks on
 * a full pipe) and keeps only its newest bytes. When read, the fragment of
 * a line at the start of the window is dropped, secrets are masked and
 * control characters removed: the text is the upstream's, and an operator
 * reads it on a terminal or in the console. The values the configuration
 * gives the server (`configured`: its `env`) are masked wherever they stand,
 * whatever their shape: a server that prints the token it was started with
 * as it fails would otherwise show it to whoever reads the failure.
 * `forward` also passes every chunk on, as it came (the operator asked for
 * `stderr: 'inherit'`).
 */
export function createStderrTail(stream: Stream | null, forward?: NodeJS.WritableStream, configured: readonly string[] = []): StderrTail {
  // Longest first: a value holding another is masked whole.
  const masked = configured.filter((value) => value.length >= MIN_MASKED_VALUE).sort((a, b) => b.length - a.length);
  let kept = Buffer.alloc(0);
  let cut = false;
  stream?.on('data', (chunk: Buffer | string) => {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    forward?.write(bytes);
    const newest = bytes.length >= MAX_TAIL_BYTES ? bytes.subarray(-MAX_TAIL_BYTES) : bytes;
    const total = kept.length + newest.length;
    cut ||= total > MAX_TAIL_BYTES || newest !== bytes;
    kept = Buffer.from(Buffer.concat([kept, newest], total).subarray(-MAX_TAIL_BYTES));
  });
  // An error on the pipe only ends what is kept; it says nothing about the server.
  stream?.on('error', () => undefined);
  return {
    text() {
      const lines = kept.toString('utf8').split(/\r?\n/).map((line) => line.trimEnd());
      // The window's first line is a fragment when older bytes were dropped (it may start inside a character).
      if (cut && lines.length > 1) lines.shift();
      while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
      let text = lines.slice(-MAX_TAIL_LINES).join('\n');
      for (const value of masked) text = text.replaceAll(value, '[redacted]');
      return scanHiddenCharacters(redactSecrets(text), true).text;
    },
  };
}
