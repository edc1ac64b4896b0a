import { ConfigurationError, requireCapability, ToolExecutionError } from '../../core/internal.js';
import { defineBuiltin } from './define-builtin.js';
import { parseJsonBody, webSearchProviders, type WebSearchHit, type WebSearchProviderName } from './web-search-providers.js';

export interface WebSearchArgs {
  readonly query: string;
  readonly count?: number;
  /** Configuration only. */
  readonly provider?: WebSearchProviderName;
  /** Configuration only: the provider's endpoint (required for SearXNG). */
  readonly endpoint?: string;
  /** Configuration only: the secret-store reference of the API key. */
  readonly credentialRef?: string;
}

export interface WebSearchResult {
  readonly provider: WebSearchProviderName;
  readonly results: readonly WebSearchHit[];
}

/** A web search through a configured provider (SearXNG, Brave or Tavily). */
export const webSearchTool = defineBuiltin<WebSearchArgs, WebSearchResult>({
  name: 'web_search',
  description: 'Search the web. Returns titles, URLs and snippets; the pages themselves are untrusted.',
  input: {
    type: 'object',
    properties: {
      query: { type: 'string', minLength: 1, maxLength: 400, description: 'What to search for.' },
      count: { type: 'integer', minimum: 1, maximum: 20, description: 'How many results; default 5.' },
      provider: { enum: ['searxng', 'brave', 'tavily'] },
      endpoint: { type: 'string', minLength: 1 },
      credentialRef: { type: 'string', minLength: 1 },
    },
    required: ['query'],
    additionalProperties: false,
  },
  output: {
    type: 'object',
    description: 'The `provider` used and its `results`: `title`, `url`, `snippet`.',
    properties: {
      provider: { enum: ['searxng', 'brave', 'tavily'] },
      results: {
        type: 'array',
        items: { type: 'object', properties: { title: { type: 'string' }, url: { type: 'string' }, snippet: { type: 'string' } }, required: ['title', 'url', 'snippet'] },
      },
    },
    required: ['provider', 'results'],
  },
  configOnly: ['provider', 'endpoint', 'credentialRef'],
  facts: { readOnly: true, openWorld: true },
  policy: { egress: 'search' },
  policyTarget: (args) => ({ query: args.query, ...(args.endpoint === undefined ? {} : { url: args.endpoint }) }),
  async dispatch(args, host, context) {
    const name = args.provider ?? 'searxng';
    const provider = webSearchProviders[name];
    const endpoint = args.endpoint ?? provider.defaultEndpoint;
    if (endpoint === undefined) throw new ConfigurationError('web_search.endpoint', `is required for the ${name} provider`);
    const request = provider.request({ endpoint, query: args.query, count: args.count ?? 5, credentialRef: args.credentialRef });
    const response = await requireCapability(host, 'egress', context.toolName).fetch({ ...request, tool: context.toolName }, context.signal, context.hostCallOptions);
    const body = response.status >= 200 && response.status < 300 ? parseJsonBody(response) : undefined;
    if (body === undefined) throw new ToolExecutionError(context.toolName, { detail: `the ${name} provider answered with status ${response.status}` });
    return { provider: name, results: provider.parse(body).slice(0, args.count ?? 5) };
  },
});
