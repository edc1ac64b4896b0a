// toolgate inside the Vercel AI SDK (`ai` 7): governed tools for generateText, streamText and agents.
export { toAISDKTools, recordAISDKRejections } from './to-ai-sdk-tools.js';
export { findApprovalResponses, type ApprovalAnswer } from './find-approval-responses.js';
export { ToolOutcomeError } from '../shared/outcome-error.js';
export { MissingPeerError } from '../shared/load-peer.js';
