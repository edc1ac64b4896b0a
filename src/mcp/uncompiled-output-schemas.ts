import type { jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';

/**
 * The MCP SDK's client compiles every output schema a server lists, with its
 * own ajv, the moment `tools/list` answers: an upstream's `anyOf` of 2,000
 * alternatives held the gateway's event loop 8 s at every listing, and a
 * schema ajv refuses failed the whole listing. The gateway never runs those
 * validators (its calls pass `lean-tools-call.ts` or a request with its own
 * result rule) and checks a result with toolgate's bounded copy of the schema
 * (`stripSchemaRegexes`, `boundSchemaCost`), so its upstream clients compile
 * none. A validator asked for anyway fails every value, saying why.
 */
export const UNCOMPILED_OUTPUT_SCHEMAS: jsonSchemaValidator = {
  getValidator: () => () => ({ valid: false, data: undefined, errorMessage: "toolgate checks an upstream's results against its own copy of the schema" }),
};
