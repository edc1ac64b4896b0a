import type { EgressRequest, EgressResponse } from '../../core/internal.js';

export type WebSearchProviderName = 'searxng' | 'brave' | 'tavily';

export interface WebSearchHit {
  readonly title: string;
  readonly url: string;
  readonly snippet: string;
}

/** One provider: how to ask, and how to read the answer. Keys travel only as a `credentialRef`. */
export interface WebSearchProvider {
  readonly defaultEndpoint: string | undefined;
  request(options: { endpoint: string; query: string; count: number; credentialRef: string | undefined }): EgressRequest;
  parse(body: unknown): WebSearchHit[];
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function hits(list: unknown, snippetKey: string): WebSearchHit[] {
  if (!Array.isArray(list)) return [];
  return list
    .filter((item): item is Record<string, unknown> => typeof item === 'object' && item !== null)
    .map((item) => ({ title: text(item.title), url: text(item.url), snippet: text(item[snippetKey]) }))
    .filter((hit) => hit.url.length > 0);
}

const credential = (ref: string | undefined, header?: string): Partial<EgressRequest> =>
  ref === undefined ? {} : { credentialRef: ref, ...(header === undefined ? {} : { credentialHeader: header }) };

export const webSearchProviders: Readonly<Record<WebSearchProviderName, WebSearchProvider>> = {
  searxng: {
    defaultEndpoint: undefined,
    request: ({ endpoint, query, credentialRef }) => {
      const url = new URL('search', endpoint.endsWith('/') ? endpoint : `${endpoint}/`);
      url.searchParams.set('q', query);
      url.searchParams.set('format', 'json');
      return { method: 'GET', url: url.href, headers: { accept: 'application/json' }, ...credential(credentialRef) };
    },
    parse: (body) => hits((body as { results?: unknown } | null)?.results, 'content'),
  },
  brave: {
    defaultEndpoint: 'https://api.search.brave.com/res/v1/web/search',
    request: ({ endpoint, query, count, credentialRef }) => {
      const url = new URL(endpoint);
      url.searchParams.set('q', query);
      url.searchParams.set('count', String(count));
      return { method: 'GET', url: url.href, headers: { accept: 'application/json' }, ...credential(credentialRef, 'x-subscription-token') };
    },
    parse: (body) => hits((body as { web?: { results?: unknown } } | null)?.web?.results, 'description'),
  },
  tavily: {
    defaultEndpoint: 'https://api.tavily.com/search',
    request: ({ endpoint, query, count, credentialRef }) => ({
      method: 'POST',
      url: endpoint,
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ query, max_results: count }),
      ...credential(credentialRef),
    }),
    parse: (body) => hits((body as { results?: unknown } | null)?.results, 'content'),
  },
};

/** The provider's JSON answer, or `undefined` when it is not JSON. */
export function parseJsonBody(response: EgressResponse): unknown {
  try {
    return JSON.parse(response.body) as unknown;
  } catch {
    return undefined;
  }
}
