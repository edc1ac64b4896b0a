import type { Attributes, Tracer } from '@opentelemetry/api';
import type { ToolRegistry } from '../../core/internal.js';
import type { RegistryTracing } from '../../otel/index.js';
import { CliError } from '../cli-error.js';

/**
 * The OpenTelemetry packages `toolgate serve` exports traces with. All are
 * optional (the API is an optional peer): a gateway without a collector
 * loads none of them, so the CLI runs without them installed.
 */
export const TRACE_EXPORT_PACKAGES = ['@opentelemetry/api', '@opentelemetry/sdk-trace', '@opentelemetry/resources', '@opentelemetry/exporter-trace-otlp-http'] as const;

/** What to install: the SDK 2.x line, the one that runs on Node 20 (3.x needs Node 22 and API 1.10), with the API it accepts. */
const TRACE_EXPORT_INSTALL = '@opentelemetry/api@1.9 @opentelemetry/sdk-trace@2 @opentelemetry/resources@2 @opentelemetry/exporter-trace-otlp-http@0.223';

export interface TraceExport {
  /** Trace a registry's calls (`toolgate/otel`'s `traceRegistry`) to the collector. */
  trace(registry: Pick<ToolRegistry, 'on'>): RegistryTracing;
  /** Export what is still buffered, then stop. */
  shutdown(): Promise<void>;
}

/** What toolgate uses of the SDK packages, declared here because they are optional and may be absent at build time. */
interface SdkTrace {
  TracerProvider: new (options: { resource: unknown; spanProcessors: unknown[] }) => { getTracer(name: string, version?: string): Tracer; shutdown(): Promise<void> };
  BatchSpanProcessor: new (options: { exporter: unknown }) => unknown;
}
interface SdkResources {
  resourceFromAttributes(attributes: Attributes): unknown;
}
interface OtlpHttp {
  OTLPTraceExporter: new () => unknown;
}

/**
 * Traces over OTLP/HTTP (JSON), when the environment names a collector with
 * `OTEL_EXPORTER_OTLP_ENDPOINT` (or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`);
 * undefined otherwise. The exporter reads the standard `OTEL_EXPORTER_OTLP_*`
 * variables itself (headers, timeout); spans go out in batches, and what is
 * left is sent when the gateway stops. The service is `OTEL_SERVICE_NAME`,
 * default `toolgate`. A collector named
 * without the SDK packages installed is a configuration error: the gateway
 * does not start without the traces it was told to send.
 */
export async function startTraceExport(env: NodeJS.ProcessEnv): Promise<TraceExport | undefined> {
  const endpoint = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? env.OTEL_EXPORTER_OTLP_ENDPOINT;
  if (endpoint === undefined || endpoint.trim() === '') return undefined;
  const [, sdk, resources, otlp] = await Promise.all([
    load<unknown>(TRACE_EXPORT_PACKAGES[0]),
    load<SdkTrace>(TRACE_EXPORT_PACKAGES[1]),
    load<SdkResources>(TRACE_EXPORT_PACKAGES[2]),
    load<OtlpHttp>(TRACE_EXPORT_PACKAGES[3]),
  ]);
  // Only now that the API is known to be there: toolgate/otel imports it.
  const { traceRegistry } = await import('../../otel/index.js');
  const resource = resources.resourceFromAttributes({ 'service.name': nonEmpty(env.OTEL_SERVICE_NAME) ?? 'toolgate' });
  const provider = new sdk.TracerProvider({ resource, spanProcessors: [new sdk.BatchSpanProcessor({ exporter: new otlp.OTLPTraceExporter() })] });
  const tracer = provider.getTracer('toolgate');
  return { trace: (registry) => traceRegistry(registry, { tracer }), shutdown: () => provider.shutdown() };
}

async function load<T>(name: string): Promise<T> {
  try {
    return (await import(name)) as T;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ERR_MODULE_NOT_FOUND') throw error;
    throw new CliError(
      'config',
      `OTEL_EXPORTER_OTLP_ENDPOINT is set, but ${name} is not installed. Install the OpenTelemetry SDK packages beside toolgate (npm install ${TRACE_EXPORT_INSTALL}), or unset OTEL_EXPORTER_OTLP_ENDPOINT.`,
      { cause: error },
    );
  }
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value;
}
