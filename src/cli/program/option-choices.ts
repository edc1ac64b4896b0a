import type { ReceiptStatus } from '../../core/internal.js';

/*
 * The values an option accepts, apart from the commands that use them: the
 * program declares its options without loading any command's module.
 */

/** The statuses a receipt can have, so `audit tail --status` refuses a value that could never match. */
export const RECEIPT_STATUSES = ['ok', 'error', 'denied', 'cancelled', 'replayed'] as const satisfies readonly ReceiptStatus[];

/** What `toolgate tools --format` prints: a table, or one provider's wire tools. */
export const TOOL_FORMATS = ['table', 'openai-chat', 'openai-responses', 'anthropic', 'gemini', 'mcp'] as const;
