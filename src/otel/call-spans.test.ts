import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import type { ToolgateEventMap } from '../core/internal.js';
import { recordingTracer } from './__fixtures__/record-spans.js';
import { CallSpans } from './call-spans.js';

type ResultEvent = ToolgateEventMap['tool-result'];

const resultOf = (callId: string, ok: boolean, mcp?: { server: string; tool?: string }): ResultEvent =>
  ({
    callId,
    toolName: 'gh.create_issue',
    parent: undefined,
    at: 30,
    ok,
    ...(ok ? {} : { code: 'EXECUTION_FAILED' }),
    receipt: {
      tool: 'gh.create_issue',
      invocationId: `inv-${callId}`,
      startedAt: 10,
      status: ok ? 'ok' : 'error',
      code: ok ? 'OK' : 'EXECUTION_FAILED',
      policy: { decision: 'allow', rules: [] },
      approval: { outcome: 'not-required' },
      effect: 'none',
      risk: 'low',
      ...(mcp === undefined ? {} : { target: { mcp } }),
    },
  }) as unknown as ResultEvent;

describe('CallSpans', () => {
  it('opens and ends an in-process span from a result alone, marked failed with the pipeline code', () => {
    const { tracer, spans } = recordingTracer();
    new CallSpans(tracer, false).result(resultOf('c1', false));
    expect(spans).toHaveLength(1);
    expect(spans[0]).toMatchObject({ name: 'execute_tool gh.create_issue', kind: SpanKind.INTERNAL, ended: true, status: { code: SpanStatusCode.ERROR, message: 'EXECUTION_FAILED' } });
    expect(spans[0]?.attributes['error.type']).toBe('EXECUTION_FAILED');
  });

  it('writes the upstream call as a child span with the execution bracket, only once the body started', () => {
    const { tracer, spans } = recordingTracer();
    const calls = new CallSpans(tracer, false);
    calls.requested({ callId: 'c1', toolName: 'gh.create_issue', parent: undefined, at: 1, toolInput: {} } as unknown as ToolgateEventMap['tool-call-requested']);
    calls.executing({ callId: 'c1', at: 12 });
    calls.executed({ callId: 'c1', at: 20 });
    calls.result(resultOf('c1', true, { server: 'gh', tool: 'create_issue' }));
    calls.result(resultOf('c2', true, { server: 'gh', tool: 'create_issue' }));
    const upstream = spans.filter((span) => span.name === 'tools/call create_issue');
    expect(upstream).toHaveLength(1);
    expect(upstream[0]).toMatchObject({ kind: SpanKind.CLIENT, parentId: spans[0]?.spanId, ended: true, status: undefined });
    expect(upstream[0]?.attributes['toolgate.upstream.server']).toBe('gh');
  });

  it('keeps the arguments off the span unless asked to record them', () => {
    const requested = { callId: 'c1', toolName: 'echo', parent: undefined, at: 1, toolInput: { text: 'hi' } } as unknown as ToolgateEventMap['tool-call-requested'];
    const quiet = recordingTracer();
    new CallSpans(quiet.tracer, false).requested(requested);
    expect(quiet.spans[0]?.attributes).not.toHaveProperty('gen_ai.tool.call.arguments');
    const recording = recordingTracer();
    new CallSpans(recording.tracer, true).requested(requested);
    expect(recording.spans[0]?.attributes['gen_ai.tool.call.arguments']).toBe('{"text":"hi"}');
  });

  it('ends a served span when the client has its answer, marking an error answer the pipeline never coded', async () => {
    const { tracer, spans } = recordingTracer();
    const calls = new CallSpans(tracer, false);
    const served = { callId: 's1', tool: 'withheld', requestId: 1, sessionId: undefined, transport: 'stdio' } as const;
    await calls.served(served, () => Promise.resolve({ content: [], isError: true }));
    expect(spans[0]).toMatchObject({ name: 'tools/call withheld', kind: SpanKind.SERVER, ended: true, status: { code: SpanStatusCode.ERROR, message: 'tool_error' } });
    await expect(calls.served({ ...served, callId: 's2' }, () => Promise.reject(new TypeError('lost')))).rejects.toThrow('lost');
    expect(spans[1]?.attributes['error.type']).toBe('TypeError');
    expect(spans[1]?.ended).toBe(true);
  });
});
