import { loadPeer } from '../shared/load-peer.js';

type ToolsModule = typeof import('@langchain/core/tools');
type MessagesModule = typeof import('@langchain/core/messages');

const subpath = 'toolgate/langchain';
const packageName = '@langchain/core';
const range = '^1.4.0';

/** LangChain's tool and message classes, loaded once; a missing install fails here with what to install. */
export const langchainTools: ToolsModule = await loadPeer({ subpath, packageName, range, load: () => import('@langchain/core/tools') });
export const langchainMessages: MessagesModule = await loadPeer({ subpath, packageName, range, load: () => import('@langchain/core/messages') });
