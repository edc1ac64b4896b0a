// `toolgate/otel`: metrics and traces through @opentelemetry/api (an optional peer).
export { ESCAPE_REASONS, instrumentRegistry, type InstrumentRegistryOptions } from './instrument-registry.js';
export { traceRegistry, type RegistryTracing, type TraceRegistryOptions } from './trace-registry.js';
