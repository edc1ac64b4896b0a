import type { ToolgateEventMap, ToolgateEventName, ToolRegistry } from '../core/internal.js';

export interface RecordedEvent<TName extends ToolgateEventName = ToolgateEventName> {
  readonly type: TName;
  readonly event: ToolgateEventMap[TName];
}

export interface EventRecording {
  readonly events: readonly RecordedEvent[];
  /** Event names in order, for sequence assertions. */
  types(): ToolgateEventName[];
  of<TName extends ToolgateEventName>(type: TName): ToolgateEventMap[TName][];
  stop(): void;
}

const ALL_EVENTS: readonly ToolgateEventName[] = [
  'tool-call-requested',
  'policy-decided',
  'approval-requested',
  'approval-resolved',
  'tool-call-started',
  'tool-call-finished',
  'tool-call-failed',
  'output-spilled',
  'tool-result',
  'observer-error',
];

/** Record every event a registry emits until `stop()`. */
export function recordEvents(registry: ToolRegistry, only: readonly ToolgateEventName[] = ALL_EVENTS): EventRecording {
  const events: RecordedEvent[] = [];
  const stops = only.map((type) => registry.on(type, (event) => void events.push({ type, event })));
  return {
    events,
    types: () => events.map((entry) => entry.type),
    of: <TName extends ToolgateEventName>(type: TName) => events.filter((entry) => entry.type === type).map((entry) => entry.event as ToolgateEventMap[TName]),
    stop: () => {
      for (const stop of stops) stop();
    },
  };
}
