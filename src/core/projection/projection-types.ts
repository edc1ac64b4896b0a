import type { JsonSchema } from '../tools/tool-types.js';

export type ProviderName = 'openai-chat' | 'openai-responses' | 'anthropic' | 'gemini' | 'mcp';

export interface OpenAIChatTool {
  readonly type: 'function';
  readonly function: {
    readonly name: string;
    readonly description: string;
    readonly parameters: JsonSchema;
    readonly strict: boolean;
  };
}

export interface OpenAIResponsesTool {
  readonly type: 'function';
  readonly name: string;
  readonly description: string;
  readonly parameters: JsonSchema;
  readonly strict: boolean;
}

export interface AnthropicTool {
  readonly name: string;
  readonly description: string;
  readonly input_schema: JsonSchema & { readonly type: 'object' };
}

export interface GeminiFunctionDeclaration {
  readonly name: string;
  readonly description: string;
  readonly parameters: JsonSchema;
}

export interface McpToolAnnotations {
  readonly title?: string;
  readonly readOnlyHint?: boolean;
  readonly destructiveHint?: boolean;
  readonly idempotentHint?: boolean;
  readonly openWorldHint?: boolean;
}

export interface McpTool {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: JsonSchema & { readonly type: 'object' };
  readonly outputSchema?: JsonSchema & { readonly type: 'object' };
  readonly annotations?: McpToolAnnotations;
}

export interface ProviderToolMap {
  readonly 'openai-chat': OpenAIChatTool;
  readonly 'openai-responses': OpenAIResponsesTool;
  readonly anthropic: AnthropicTool;
  readonly gemini: GeminiFunctionDeclaration;
  readonly mcp: McpTool;
}

export type ProviderTools<TProvider extends ProviderName> = readonly ProviderToolMap[TProvider][];

export interface ProjectOptions {
  /** `read-only`: tools whose policy class writes are not offered at all. */
  readonly tier?: 'read-only' | 'full';
  /** Names listed first, in this order; the rest follow by name. */
  readonly order?: readonly string[];
}
