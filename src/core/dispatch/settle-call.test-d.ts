import { expectTypeOf, test } from 'vitest';
import type { ToolgateError } from '../errors/toolgate-error.js';
import type { StageFailure, StageResult, StageSuccess } from './dispatch-state.js';
import type { ToolFailure, ToolOutcome, ToolSuccess } from './dispatch-types.js';
import { outcomeOf, type DispatchFailure, type DispatchSuccess } from './settle-call.js';

test('a success and a failure are separate types, each a public outcome without a cast', () => {
  expectTypeOf<DispatchSuccess>().toExtend<ToolSuccess>();
  expectTypeOf<DispatchFailure>().toExtend<ToolFailure>();
  expectTypeOf<ReturnType<typeof outcomeOf>>().toExtend<ToolOutcome>();
  expectTypeOf<DispatchSuccess['ok']>().toEqualTypeOf<true>();
  expectTypeOf<DispatchFailure['ok']>().toEqualTypeOf<false>();
  // A failure carries no value, a success no error.
  expectTypeOf<DispatchFailure>().not.toHaveProperty('value');
  expectTypeOf<DispatchSuccess>().not.toHaveProperty('error');
});

test('`ok` narrows a stage result and an outcome alike', () => {
  const narrow = (result: StageResult, outcome: ReturnType<typeof outcomeOf>): void => {
    if (result.ok) expectTypeOf(result).toEqualTypeOf<StageSuccess>();
    else expectTypeOf(result).toEqualTypeOf<StageFailure>();
    if (outcome.ok) expectTypeOf(outcome.value).toBeUnknown();
    else expectTypeOf(outcome.error).toEqualTypeOf<ToolgateError>();
  };
  void narrow;
});
