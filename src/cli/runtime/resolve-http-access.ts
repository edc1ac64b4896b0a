import { randomBytes } from 'node:crypto';
import { closeSync, constants, fstatSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createFileIfAbsentSync } from '../../node/fs/create-file-if-absent.js';
import { writeFileAtomicSync } from '../../node/fs/write-file-atomic.js';
import { CliError } from '../cli-error.js';
import type { ResolvedConfig } from '../config/config-types.js';
import { prepareGatewayStateFolder } from './gateway-host-options.js';

/**
 * What the HTTP transport asks of a client: a bearer token, with where it
 * came from (for the start-up banner), or nothing at all (`--no-token`).
 */
export type HttpAccess =
  | { readonly kind: 'token'; readonly token: string; readonly from: 'environment' }
  | {
      readonly kind: 'token';
      readonly token: string;
      /** `generated` now, `saved` in the workspace by an earlier start, or the user's `token-file`. */
      readonly from: 'generated' | 'saved' | 'token-file';
      readonly file: string;
      /** Why the workspace's token file was not reused, when it was replaced. */
      readonly replaced?: string;
    }
  | { readonly kind: 'none' };

export interface HttpAccessRequest {
  /** `--token-file PATH`. */
  readonly tokenFile?: string;
  /** `--no-token`. */
  readonly noToken?: boolean;
  /** The value of `TOOLGATE_TOKEN`, when set. */
  readonly environment?: string;
}

const MIN_LENGTH = 16;
const MAX_FILE_BYTES = 4096;

/** The gateway's own token file: under `.toolgate/`, which no tool may read. */
export function httpTokenPath(config: ResolvedConfig): string {
  return join(config.workspace, '.toolgate', 'http-token');
}

/**
 * The token the HTTP transport requires, never from the command line (every
 * local user can read a process's argv): `--token-file`, else
 * `TOOLGATE_TOKEN`, else the workspace's `.toolgate/http-token`, reused when
 * it is a private regular file of this user and generated otherwise.
 */
export function resolveHttpAccess(config: ResolvedConfig, request: HttpAccessRequest): HttpAccess {
  if (request.noToken === true) {
    if (request.tokenFile !== undefined) throw new CliError('usage', '--no-token and --token-file contradict each other: give one.');
    if (request.environment !== undefined) throw new CliError('usage', '--no-token was given while TOOLGATE_TOKEN is set: unset it, or leave out --no-token.');
    return { kind: 'none' };
  }
  if (request.tokenFile !== undefined) {
    const token = checkToken(readPrivateFile(request.tokenFile, `--token-file ${request.tokenFile}`, 'user'), `--token-file ${request.tokenFile}`);
    return { kind: 'token', token, from: 'token-file', file: request.tokenFile };
  }
  if (request.environment !== undefined) return { kind: 'token', token: checkToken(request.environment, 'TOOLGATE_TOKEN'), from: 'environment' };
  return workspaceToken(config);
}

function workspaceToken(config: ResolvedConfig): HttpAccess {
  const file = httpTokenPath(config);
  prepareGatewayStateFolder(config);
  let replaced: string | undefined;
  try {
    const token = checkToken(readPrivateFile(file, file, 'gateway'), file);
    return { kind: 'token', token, from: 'saved', file };
  } catch (error) {
    if (!(error instanceof TokenProblem)) throw error;
    if (error.reason !== 'missing') replaced = error.message;
  }
  const token = randomBytes(32).toString('base64url');
  // Written whole beside the target, then moved into place: a reader never sees half a token, and nothing is written through a planted link.
  if (replaced !== undefined) {
    // The rename replaces the bad entry itself (a link is replaced, never followed).
    writeFileAtomicSync(file, `${token}\n`, { mode: 0o600 });
  } else if (createFileIfAbsentSync(file, `${token}\n`, { mode: 0o600 }) === 'exists') {
    // Another start made one in the meantime: both use it.
    return { kind: 'token', token: checkToken(readPrivateFile(file, file, 'gateway'), file), from: 'saved', file };
  }
  return { kind: 'token', token, from: 'generated', file, ...(replaced === undefined ? {} : { replaced }) };
}

/** Why a token cannot be used; only `missing` lets the workspace file be generated without a warning. */
class TokenProblem extends CliError {
  readonly reason: 'missing' | 'unsafe';
  constructor(reason: 'missing' | 'unsafe', message: string) {
    super('usage', message);
    this.reason = reason;
  }
}

/**
 * A file only this user can read or write, opened once and judged by its
 * descriptor. The user's own file may be reached through a link (a secret
 * kept elsewhere); the gateway's must not be one. Opened non-blocking, so a
 * FIFO planted in its place cannot hang the start.
 */
function readPrivateFile(path: string, label: string, whose: 'user' | 'gateway'): string {
  const follow = whose === 'user';
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK | (follow ? 0 : constants.O_NOFOLLOW));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new TokenProblem('missing', `${label}: missing`);
    if (code === 'ELOOP') throw new TokenProblem('unsafe', `${label}: is a symbolic link`);
    throw new TokenProblem('unsafe', `${label}: cannot be read (${code ?? 'open failed'})`);
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new TokenProblem('unsafe', `${label}: is not a regular file`);
    if (process.getuid !== undefined && stat.uid !== process.getuid()) throw new TokenProblem('unsafe', `${label}: belongs to another user`);
    const mode = stat.mode & 0o777;
    if ((mode & 0o077) !== 0) throw new TokenProblem('unsafe', `${label}: is readable or writable by others (mode ${mode.toString(8).padStart(4, '0')})${follow ? `: chmod 600 ${path}` : ''}`);
    if (stat.size > MAX_FILE_BYTES) throw new TokenProblem('unsafe', `${label}: is larger than a token (${stat.size} bytes)`);
    return readFileSync(fd, 'utf8');
  } finally {
    closeSync(fd);
  }
}

/** Trimmed; long enough not to be guessed, and sendable as it is in an HTTP header. */
function checkToken(raw: string, label: string): string {
  const token = raw.trim();
  if (token.length < MIN_LENGTH) throw new TokenProblem('unsafe', `${label}: the token must be at least ${MIN_LENGTH} characters`);
  if (!/^[\x21-\x7e]+$/.test(token)) throw new TokenProblem('unsafe', `${label}: the token must be printable ASCII with no spaces (it travels in an HTTP header)`);
  return token;
}
