import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { projectArguments } from '../receipts/project-arguments.js';
import { buildApprovalPreview } from './build-approval-preview.js';

const summaryOf = (args: unknown, reuse: boolean): string | undefined => {
  const value = projectArguments(args);
  return buildApprovalPreview('os', undefined, args, reuse ? { shown: value } : {}).preview.summary;
};
const AWS_KEY = `AKIA${'Q'.repeat(16)}`;

describe('the approval summary line', () => {
  it('is the same whether it reuses the call’s projection or projects the arguments again, for any JSON arguments', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 5 }), (args) => {
        expect(summaryOf(args, true)).toBe(summaryOf(args, false));
      }),
      { numRuns: 500 },
    );
  });

  it('never shows more than its limits or a secret, when the projection it is offered is wider than the card', () => {
    const cases: Record<string, unknown> = {
      'a string past the summary limit with a key in its tail': { note: `${'x'.repeat(200)} ${AWS_KEY}` },
      'a string past the projection limit': { note: `${AWS_KEY} ${'y'.repeat(600)}` },
      'nesting deeper than the summary': { a: { b: { c: { d: { token: AWS_KEY } } } } },
      'more entries than the summary': Object.fromEntries(Array.from({ length: 20 }, (_, index) => [`k${index}`, index === 19 ? AWS_KEY : index])),
      'a credential-named member': { password: 'hunter2hunter2', nested: { apiKey: 12345678 } },
    };
    for (const [label, args] of Object.entries(cases)) {
      const reused = summaryOf(args, true) ?? '';
      expect(reused, label).toBe(summaryOf(args, false));
      expect(reused, label).not.toContain(AWS_KEY);
      expect(reused, label).not.toContain('hunter2');
      expect(reused, label).not.toMatch(/y{121}|x{121}/);
    }
    expect(summaryOf(cases['nesting deeper than the summary'], true)).toContain('[nested]');
    expect(summaryOf(cases['more entries than the summary'], true)).toContain('more keys');
  });

  it('masks the call’s secret arguments when it projects the arguments again, as the projection it was offered did', () => {
    const secretKeys = new Set(['login']);
    // A member named `…`, or more than 64 members, reads like a cut: the summary is projected again.
    for (const args of [{ login: 'hunter2-very-secret-value', '…': 1 }, { login: 'hunter2-very-secret-value', ...Object.fromEntries(Array.from({ length: 70 }, (_, index) => [`k${index}`, index])) }]) {
      const shown = projectArguments(args, { secretKeys });
      const summary = buildApprovalPreview('os', undefined, args, { shown, secretKeys }).preview.summary ?? '';
      expect(summary).toContain('[redacted]');
      expect(summary).not.toContain('hunter2');
      expect(summary).toBe(JSON.stringify(projectArguments(args, { maxString: 120, maxEntries: 16, maxDepth: 3, secretKeys })));
    }
  });
});
