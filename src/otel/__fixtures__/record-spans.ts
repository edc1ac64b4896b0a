import { trace, type Attributes, type Context, type Span, type SpanContext, type SpanKind, type SpanOptions, type SpanStatus, type TimeInput, type Tracer } from '@opentelemetry/api';

/** A span as a `recordingTracer` keeps it. */
export interface RecordedSpan {
  name: string;
  readonly kind: SpanKind | undefined;
  readonly spanId: string;
  readonly parentId: string | undefined;
  readonly attributes: Attributes;
  readonly events: { readonly name: string; readonly attributes: Attributes | undefined }[];
  status: SpanStatus | undefined;
  ended: boolean;
}

/** A Tracer that keeps every span it starts, with its parent (no OpenTelemetry SDK is installed here). */
export function recordingTracer(): { tracer: Tracer; spans: RecordedSpan[] } {
  const spans: RecordedSpan[] = [];
  let next = 0;
  const startSpan = (name: string, options: SpanOptions = {}, context?: Context): Span => {
    next += 1;
    const spanContext: SpanContext = { traceId: '0'.repeat(31) + '1', spanId: next.toString(16).padStart(16, '0'), traceFlags: 1 };
    const parent = context === undefined ? undefined : trace.getSpan(context)?.spanContext().spanId;
    const recorded: RecordedSpan = { name, kind: options.kind, spanId: spanContext.spanId, parentId: parent, attributes: { ...options.attributes }, events: [], status: undefined, ended: false };
    spans.push(recorded);
    const span: Span = {
      spanContext: () => spanContext,
      setAttribute: (key, value) => ((recorded.attributes[key] = value), span),
      setAttributes: (attributes) => (Object.assign(recorded.attributes, attributes), span),
      addEvent: (event: string, attributes?: Attributes | TimeInput) => (recorded.events.push({ name: event, attributes: typeof attributes === 'object' && !Array.isArray(attributes) && !(attributes instanceof Date) ? attributes : undefined }), span),
      addLink: () => span,
      addLinks: () => span,
      setStatus: (status) => ((recorded.status = status), span),
      updateName: (renamed) => ((recorded.name = renamed), span),
      end: () => void (recorded.ended = true),
      isRecording: () => !recorded.ended,
      recordException: () => undefined,
    };
    return span;
  };
  const tracer: Tracer = {
    startSpan,
    startActiveSpan: (() => {
      throw new Error('not used by toolgate');
    }) as Tracer['startActiveSpan'],
  };
  return { tracer, spans };
}
