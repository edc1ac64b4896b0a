import { expect } from 'vitest';
import { ToolPolicyError } from '../../core/internal.js';

/** The reason a host gave for refusing: the attempt must fail with a `ToolPolicyError`. */
export async function refusalReason(attempt: Promise<unknown>): Promise<string> {
  const error = await attempt.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ToolPolicyError);
  return (error as ToolPolicyError).reason;
}
