import { loadPeer } from '../shared/load-peer.js';

type AgentsModule = typeof import('@openai/agents');

/** The OpenAI Agents SDK, loaded once; a missing install fails here with what to install. */
export const agents: AgentsModule = await loadPeer({ subpath: 'toolgate/openai-agents', packageName: '@openai/agents', range: '>=0.14.3 <0.21.0', load: () => import('@openai/agents') });
