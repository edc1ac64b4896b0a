import { describe, expect, it } from 'vitest';
import { ToolgateError } from '../../core/internal.js';
import { loadPeer, MissingPeerError } from './load-peer.js';

describe('loadPeer', () => {
  it('turns a real failed import of a missing package into a message naming what to install', async () => {
    const specifier = 'toolgate-absent-peer-for-test';
    const failure = loadPeer({ subpath: 'toolgate/example', packageName: specifier, range: '^1.0.0', load: () => import(specifier) });
    await expect(failure).rejects.toBeInstanceOf(MissingPeerError);
    const error = (await failure.catch((caught: unknown) => caught)) as MissingPeerError;
    expect(ToolgateError.isInstance(error)).toBe(true);
    expect(error.code).toBe('CONFIGURATION_INVALID');
    expect(error.packageName).toBe(specifier);
    expect(error.message).toBe(
      `toolgate/example needs the optional peer dependency "${specifier}" (^1.0.0), which is not installed. Install it: npm install ${specifier}`,
    );
    expect((error.cause as { code?: string }).code).toBe('ERR_MODULE_NOT_FOUND');
  });

  it('does not misreport a missing dependency of the peer as the peer itself', async () => {
    const inner = Object.assign(new Error("Cannot find package 'some-transitive-dep' imported from /x/node_modules/ai/dist/index.js"), { code: 'ERR_MODULE_NOT_FOUND' });
    await expect(loadPeer({ subpath: 'toolgate/ai-sdk', packageName: 'ai', range: '^7.0.0', load: () => Promise.reject(inner) })).rejects.toBe(inner);
  });

  it('passes other failures through unchanged', async () => {
    const broken = new SyntaxError('Unexpected token');
    await expect(loadPeer({ subpath: 'toolgate/langchain', packageName: '@langchain/core', range: '^1.4.0', load: () => Promise.reject(broken) })).rejects.toBe(broken);
  });

  it('returns the module when the peer is installed', async () => {
    const module = await loadPeer({ subpath: 'toolgate/ai-sdk', packageName: 'ai', range: '^7.0.0', load: () => import('ai') });
    expect(typeof module.jsonSchema).toBe('function');
  });
});
