import type { JsonSchema } from '../tools/tool-types.js';

export type ProviderName = 'openai-chat' | 'openai-responses' | 'anthropic' | 'gemini' | 'mcp';

/** An object-rooted JSON Schema, as every provider requires for tool parameters. */
export type ObjectJsonSchema = JsonSchema & { readonly type: 'object' };

/** A Chat Completions function tool (`openai` `ChatCompletionFunctionTool`). */
export interface OpenAIChatTool {
  readonly type: 'function';
  readonly function: {
    readonly name: string;
    readonly description: string;
    readonly parameters: JsonSchema;
    /** `true` when the schema could be made strict; see `toOpenAIStrictSchema`. */
    readonly strict: boolean;
  };
}

/** A Responses API function tool (`openai` `FunctionTool`). */
export interface OpenAIResponsesTool {
  readonly type: 'function';
  readonly name: string;
  readonly description: string;
  readonly parameters: JsonSchema;
  readonly strict: boolean;
}

/** An Anthropic Messages client tool (`@anthropic-ai/sdk` `Tool`). */
export interface AnthropicTool {
  readonly name: string;
  readonly description: string;
  readonly input_schema: ObjectJsonSchema;
}

/** The JSON type names of Gemini's OpenAPI schema subset (the `Type` enum of `@google/genai`). */
export type GeminiType = 'STRING' | 'NUMBER' | 'INTEGER' | 'BOOLEAN' | 'ARRAY' | 'OBJECT' | 'NULL';

/**
 * Gemini's OpenAPI 3.0 schema subset (`@google/genai` `Schema`). Integer
 * bounds are int64 values, which its JSON mapping writes as strings.
 */
export interface GeminiSchema {
  readonly type?: GeminiType;
  readonly title?: string;
  readonly description?: string;
  readonly nullable?: boolean;
  readonly enum?: readonly string[];
  readonly format?: string;
  readonly pattern?: string;
  readonly default?: unknown;
  readonly example?: unknown;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly minLength?: string;
  readonly maxLength?: string;
  readonly minItems?: string;
  readonly maxItems?: string;
  readonly minProperties?: string;
  readonly maxProperties?: string;
  readonly items?: GeminiSchema;
  readonly properties?: Readonly<Record<string, GeminiSchema>>;
  readonly required?: readonly string[];
  readonly anyOf?: readonly GeminiSchema[];
}

/** A Gemini function declaration. `parameters` is absent for a tool that takes no arguments. */
export interface GeminiFunctionDeclaration {
  readonly name: string;
  readonly description: string;
  readonly parameters?: GeminiSchema;
}

export interface McpToolAnnotations {
  readonly title?: string;
  readonly readOnlyHint?: boolean;
  readonly destructiveHint?: boolean;
  readonly idempotentHint?: boolean;
  readonly openWorldHint?: boolean;
}

/** An MCP `tools/list` entry. */
export interface McpTool {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: ObjectJsonSchema;
  /** Only an object output schema is announced (MCP structured content is an object). */
  readonly outputSchema?: ObjectJsonSchema;
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
  /** Names (or `name@version` keys) listed first, in this order; the rest follow by key. */
  readonly order?: readonly string[];
}
