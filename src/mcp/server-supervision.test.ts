import { describe, expect, it } from 'vitest';
import { McpServerUnavailableError } from './mcp-server-unavailable-error.js';
import { describeServerStatus, RETRY_MAX_MS, supervisionDown, supervisionLost, supervisionRetrying, supervisionStarting, supervisionUp } from './server-supervision.js';

const config = { name: 'up', transport: 'stdio', command: 'unused' } as const;

describe('server supervision', () => {
  it('doubles the retry delay from 1 s up to 60 s, and counts the failures', () => {
    let entry = supervisionStarting(config, 0);
    const delays: number[] = [];
    for (let attempt = 0; attempt < 8; attempt += 1) {
      const next = supervisionDown(entry, new Error('refused'), 100);
      delays.push(next.delayMs);
      entry = next.supervision;
    }
    expect(delays).toEqual([1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 60_000, 60_000]);
    expect(entry).toMatchObject({ state: 'down', failures: 8, since: 100, nextRetryAt: 60_100 });
    expect(entry.error).toBeInstanceOf(McpServerUnavailableError);
    expect(entry.error?.reason).toBe('refused');
  });

  it('forgets the failures once up, and keeps the backoff of a server that stops soon after', () => {
    const down = supervisionDown(supervisionStarting(config, 0), new Error('refused'), 0).supervision;
    const up = supervisionUp(supervisionRetrying(down, 1_000), 1_000);
    expect(up).toMatchObject({ state: 'up', failures: 0, error: undefined, nextRetryAt: undefined, upSince: 1_000, backoff: 1 });
    expect(supervisionLost(up, new Set(['mcp_up_a']), 2_000)).toMatchObject({ backoff: 1, upSince: undefined, lastNames: new Set(['mcp_up_a']) });
    expect(supervisionLost(up, new Set(), 1_000 + RETRY_MAX_MS)).toMatchObject({ backoff: 0 });
  });

  it('shows the next retry only while down, and the failure without its stack', () => {
    const down = supervisionDown(supervisionStarting(config, 0), new McpServerUnavailableError('up', new Error('exit 1'), 'boom'), 5).supervision;
    expect(describeServerStatus(down, 0)).toEqual({ server: 'up', state: 'down', since: 5, failures: 1, error: 'exit 1', stderr: 'boom', nextRetryAt: 1_005, tools: 0 });
    expect(describeServerStatus(supervisionRetrying(down, 9), 0)).not.toHaveProperty('nextRetryAt');
  });
});
