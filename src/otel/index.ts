// `toolgate/otel`: metrics through @opentelemetry/api (an optional peer).
export { ESCAPE_REASONS, instrumentRegistry, type InstrumentRegistryOptions } from './instrument-registry.js';
