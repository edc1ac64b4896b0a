// toolgate inside the OpenAI Agents SDK (`@openai/agents` 0.20): governed function tools with interruptions.
export { planInterruption, rejectInterruption, toOpenAIAgentsTools } from './to-openai-agents-tools.js';
export { ToolOutcomeError } from '../shared/outcome-error.js';
export { MissingPeerError } from '../shared/load-peer.js';
