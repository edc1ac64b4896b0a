import { loadPeer } from '../shared/load-peer.js';

/** The AI SDK, loaded once; a missing install fails here with what to install. */
export const ai = await loadPeer({ subpath: 'toolgate/ai-sdk', packageName: 'ai', range: '^6.0.0 || ^7.0.0', load: () => import('ai') });
