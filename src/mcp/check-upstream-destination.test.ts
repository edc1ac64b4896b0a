import { describe, expect, it } from 'vitest';
import { ToolPolicyError, ToolUnavailableError, type EgressCapability, type ResolvedAction, type ToolHost } from '../core/internal.js';
import { checkUpstreamDestination } from './check-upstream-destination.js';

const fetching = { http: { url: 'https://127.0.0.1/admin' } } as unknown as ResolvedAction;
const egress = (checkDestination?: EgressCapability['checkDestination']): ToolHost => ({
  egress: { fetch: () => Promise.reject(new Error('not used')), ...(checkDestination === undefined ? {} : { checkDestination }) },
});

describe('checkUpstreamDestination', () => {
  it('asks the host where the URL target leads, and passes its refusal on', async () => {
    const asked: string[] = [];
    const refusing = egress((url, tool) => (asked.push(url), Promise.reject(new ToolPolicyError(tool, 'address_not_public'))));
    await expect(checkUpstreamDestination(refusing, 'mcp_web_fetch', fetching)).rejects.toMatchObject({ reason: 'address_not_public' });
    expect(asked).toEqual(['https://127.0.0.1/admin']);
  });

  it('refuses a call with a URL target on a host that cannot check it', async () => {
    await expect(checkUpstreamDestination({}, 'mcp_web_fetch', fetching)).rejects.toBeInstanceOf(ToolUnavailableError);
    await expect(checkUpstreamDestination(egress(), 'mcp_web_fetch', fetching)).rejects.toBeInstanceOf(ToolUnavailableError);
  });

  it('checks nothing for a call without a URL target', async () => {
    await expect(checkUpstreamDestination({}, 'mcp_fs_read_file', { files: [] } as unknown as ResolvedAction)).resolves.toBeUndefined();
    await expect(checkUpstreamDestination({}, 'mcp_fs_read_file', undefined)).resolves.toBeUndefined();
  });
});
