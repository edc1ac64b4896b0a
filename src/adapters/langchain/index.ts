// toolgate inside LangChain (`@langchain/core` 1.4): governed StructuredTools returning ToolMessages.
export { toLangChainTools } from './to-langchain-tools.js';
export { ToolOutcomeError } from '../shared/outcome-error.js';
export { MissingPeerError } from '../shared/load-peer.js';
