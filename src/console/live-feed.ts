import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ToolRegistry } from '../core/internal.js';
import type { ApprovalChange, ApprovalQueue, ConsoleHello, LiveCall } from './console-types.js';
import { securityHeaders } from './console-responses.js';
import { summarizeEvent } from './summarize-event.js';

/** How many calls the live view keeps. */
const MAX_RECENT = 200;

/**
 * The console's live view: the recent calls, kept from the registry's
 * events, and the event streams of the open pages, each sent every call and
 * approval change as it happens and a keep-alive comment every 15 s.
 */
export class LiveFeed {
  readonly recent: LiveCall[] = [];
  private readonly streams = new Set<ServerResponse>();
  private readonly stops: (() => void)[];
  private readonly keepAlive: ReturnType<typeof setInterval>;

  constructor(
    registry: ToolRegistry,
    private readonly approvals: ApprovalQueue,
  ) {
    this.stops = (['tool-call-requested', 'approval-requested', 'tool-result'] as const).map((name) => registry.on(name, (event) => this.record(summarizeEvent(name, event))));
    this.stops.push(approvals.subscribe((change: ApprovalChange) => this.broadcast('approval', change)));
    this.keepAlive = setInterval(() => {
      for (const stream of this.streams) stream.write(': keep-alive\n\n');
    }, 15_000);
    this.keepAlive.unref();
  }

  broadcast(type: string, data: unknown): void {
    const frame = `event: ${type}\ndata: ${JSON.stringify(data)}\n\n`;
    for (const stream of this.streams) stream.write(frame);
  }

  /** Open an event stream: first what the page shows now, then every change, until the page goes. */
  attach(request: IncomingMessage, response: ServerResponse): void {
    response.writeHead(200, { ...securityHeaders(), 'content-type': 'text/event-stream', connection: 'keep-alive' });
    const hello: ConsoleHello = { calls: this.recent, approvals: this.approvals.pending(), closed: this.approvals.closed() };
    response.write(`event: hello\ndata: ${JSON.stringify(hello)}\n\n`);
    this.streams.add(response);
    request.on('close', () => this.streams.delete(response));
  }

  stop(): void {
    clearInterval(this.keepAlive);
    for (const stop of this.stops) stop();
    for (const stream of this.streams) stream.end();
  }

  private record(call: LiveCall): void {
    const index = this.recent.findIndex((entry) => entry.callId === call.callId);
    if (index === -1) this.recent.push(call);
    else this.recent[index] = { ...this.recent[index], ...call };
    if (this.recent.length > MAX_RECENT) this.recent.shift();
    this.broadcast('call', call);
  }
}
