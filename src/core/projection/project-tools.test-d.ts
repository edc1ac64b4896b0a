import type { Anthropic } from '@anthropic-ai/sdk';
import type { FunctionDeclaration, Type } from '@google/genai';
import type { Tool as McpSdkTool } from '@modelcontextprotocol/sdk/types.js';
import type OpenAI from 'openai';
import { describe, expectTypeOf, it } from 'vitest';
import { createToolRegistry } from '../registry/create-tool-registry.js';

const registry = createToolRegistry({ tools: [] });

// `@google/genai` declares `Type` as a string enum, which no plain string
// literal is assignable to; its wire values are what a request carries.
type WireTypes<T> = T extends Type ? `${Type}` : T extends readonly (infer Item)[] ? WireTypes<Item>[] : T extends object ? { [K in keyof T]: WireTypes<T[K]> } : T;
type DeepMutable<T> = T extends readonly (infer Item)[] ? DeepMutable<Item>[] : T extends object ? { -readonly [K in keyof T]: DeepMutable<T[K]> } : T;

describe('projections type-check against the official SDK types', () => {
  it('openai-chat → ChatCompletionTool', () => {
    expectTypeOf(registry.project('openai-chat')[0]!).toMatchTypeOf<OpenAI.Chat.Completions.ChatCompletionTool>();
    expectTypeOf(registry.project('openai-chat')[0]!).toMatchTypeOf<OpenAI.Chat.Completions.ChatCompletionFunctionTool>();
  });
  it('openai-responses → Responses FunctionTool', () => {
    expectTypeOf(registry.project('openai-responses')[0]!).toMatchTypeOf<OpenAI.Responses.FunctionTool>();
    expectTypeOf(registry.project('openai-responses')[0]!).toMatchTypeOf<OpenAI.Responses.Tool>();
  });
  it('anthropic → Messages Tool', () => {
    expectTypeOf(registry.project('anthropic')[0]!).toMatchTypeOf<Anthropic.Messages.Tool>();
    expectTypeOf(registry.project('anthropic')[0]!).toMatchTypeOf<Anthropic.Messages.ToolUnion>();
    // The check is live: a shape that differs is refused.
    expectTypeOf(registry.project('anthropic')[0]!).not.toMatchTypeOf<OpenAI.Chat.Completions.ChatCompletionFunctionTool>();
    expectTypeOf(registry.project('openai-chat')[0]!).not.toMatchTypeOf<Anthropic.Messages.Tool>();
  });
  it('gemini → FunctionDeclaration', () => {
    type Projected = ReturnType<typeof registry.project<'gemini'>>[number];
    expectTypeOf<DeepMutable<Projected>>().toMatchTypeOf<WireTypes<FunctionDeclaration>>();
    expectTypeOf<DeepMutable<Projected>>().not.toMatchTypeOf<FunctionDeclaration>();
  });
  it('mcp → the MCP SDK Tool', () => {
    expectTypeOf(registry.project('mcp')[0]!).toMatchTypeOf<McpSdkTool>();
  });
});
