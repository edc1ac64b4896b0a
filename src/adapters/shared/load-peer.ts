import { ToolgateError } from '../../core/internal.js';

/** An adapter's framework is an optional peer that is not installed. */
export class MissingPeerError extends ToolgateError {
  readonly packageName: string;
  constructor(subpath: string, packageName: string, range: string, cause: unknown) {
    super(
      'CONFIGURATION_INVALID',
      `${subpath} needs the optional peer dependency "${packageName}" (${range}), which is not installed. Install it: npm install ${packageName}`,
      { cause },
    );
    this.packageName = packageName;
  }
}

export interface LoadPeerOptions<TModule> {
  /** The toolgate subpath being imported, for the message (`toolgate/ai-sdk`). */
  readonly subpath: string;
  /** The framework package the subpath needs. */
  readonly packageName: string;
  /** The supported version range, for the message. */
  readonly range: string;
  /** The dynamic import; injectable so the missing-package path is testable. */
  readonly load: () => Promise<TModule>;
}

/**
 * Import an optional peer. A missing peer becomes a `MissingPeerError` that
 * names what to install; any other failure (a broken install, a missing
 * dependency of the peer itself) passes through unchanged, so it is never
 * misreported as "not installed".
 */
export async function loadPeer<TModule>(options: LoadPeerOptions<TModule>): Promise<TModule> {
  try {
    return await options.load();
  } catch (error) {
    if (isMissingPackage(error, options.packageName)) throw new MissingPeerError(options.subpath, options.packageName, options.range, error);
    throw error;
  }
}

function isMissingPackage(error: unknown, packageName: string): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'MODULE_NOT_FOUND') return false;
  // Node names the package it could not find: "Cannot find package 'ai' imported from …".
  return typeof message === 'string' && (message.includes(`'${packageName}'`) || message.includes(`"${packageName}"`));
}
