import { expectTypeOf, test } from 'vitest';
import { instruction, markUntrusted, placeToolResult, placeUserContent, systemMessage, unwrapUntrusted, type TrustedText, type Untrusted } from './untrusted.js';

declare const result: Untrusted<string>;

test('an untrusted value cannot reach a system message or an instruction without unwrapUntrusted', () => {
  // @ts-expect-error an Untrusted<string> is not trusted text
  systemMessage(result);
  // @ts-expect-error nor is a plain string: a system message takes only `instruction` output
  systemMessage('plain');
  // @ts-expect-error an Untrusted<string> is not assignable to string
  const text: string = result;
  // @ts-expect-error the instruction tag refuses an Untrusted interpolation
  void instruction`Summarise: ${result}`;
  void text;

  // The explicit, named unwrap is the one way out.
  const fenced: TrustedText = instruction`Summarise: ${unwrapUntrusted(result)}`;
  expectTypeOf(systemMessage(fenced).content).toEqualTypeOf<TrustedText>();
});

test('placement helpers take the untrusted value as it is', () => {
  expectTypeOf(placeToolResult('call-1', result).content).toEqualTypeOf<string>();
  expectTypeOf(placeUserContent(result).role).toEqualTypeOf<'user'>();
  expectTypeOf(markUntrusted({ handle: 'media:x', mediaType: 'image/png', bytes: 1 })).toEqualTypeOf<Untrusted<{ handle: string; mediaType: string; bytes: number }>>();
});
