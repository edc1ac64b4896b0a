import { requireCapability, type EgressResponse } from '../../core/internal.js';
import { defineBuiltin } from './define-builtin.js';
import { mediaHandleSchema } from './shared-schemas.js';

export interface HttpRequestArgs {
  readonly url: string;
  readonly method: 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'OPTIONS';
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string;
  /** Configuration only: a secret-store reference the host attaches. */
  readonly credentialRef?: string;
  /** Configuration only: the header the credential goes in (default `Authorization: Bearer`). */
  readonly credentialHeader?: string;
}

/** One HTTPS request to an allowed domain, SSRF-checked at the host. */
export const httpRequestTool = defineBuiltin<HttpRequestArgs, EgressResponse>({
  name: 'http_request',
  description:
    'Make one HTTPS request to an allowed domain. Redirects are followed only to allowed https URLs (at most 5). The response body is capped; binary bodies come back as a media handle.',
  input: {
    type: 'object',
    properties: {
      url: { type: 'string', minLength: 1, maxLength: 8192, description: 'An https URL without credentials.' },
      method: { enum: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] },
      headers: { type: 'object', additionalProperties: { type: 'string', maxLength: 8192 }, maxProperties: 64 },
      body: { type: 'string', description: 'The request body, as text.' },
      credentialRef: { type: 'string', minLength: 1 },
      credentialHeader: { type: 'string', minLength: 1 },
    },
    required: ['url', 'method'],
    additionalProperties: false,
  },
  output: {
    type: 'object',
    description: '`status`, response `headers` (lower-case names), text `body` (empty when `media` holds a binary body), `truncated` when the cap cut the body, and the final `url` after redirects.',
    properties: {
      status: { type: 'integer' },
      headers: { type: 'object', additionalProperties: { type: 'string' } },
      body: { type: 'string' },
      media: mediaHandleSchema,
      truncated: { type: 'boolean' },
      url: { type: 'string' },
    },
    required: ['status', 'headers', 'body', 'truncated', 'url'],
  },
  configOnly: ['credentialRef', 'credentialHeader'],
  facts: { openWorld: true },
  policy: { egress: 'http' },
  policyTarget: (args) => ({ url: args.url, method: args.method }),
  // The headers are part of what the request does (an `x-amz-acl` makes an object public): the card shows them, masked where they are credentials.
  presentCall: (args) => ({
    title: `${args.method} ${args.url}`,
    ...(args.headers === undefined ? {} : { subtitle: `headers ${JSON.stringify(args.headers)}` }),
    ...(args.body === undefined ? {} : { body: args.body }),
  }),
  dispatch(args, host, context) {
    const request = {
      url: args.url,
      method: args.method,
      tool: context.toolName,
      ...(args.headers === undefined ? {} : { headers: args.headers }),
      ...(args.body === undefined ? {} : { body: args.body }),
      ...(args.credentialRef === undefined ? {} : { credentialRef: args.credentialRef }),
      ...(args.credentialHeader === undefined ? {} : { credentialHeader: args.credentialHeader }),
    };
    return requireCapability(host, 'egress', context.toolName).fetch(request, context.signal, context.hostCallOptions);
  },
});
