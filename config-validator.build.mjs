/*
 * The configuration's validator, generated from schema/toolgate.config.schema.json
 * at build time: Ajv's compilation of the schema costs a CLI process more than
 * reading its configuration does, once per command. `npm run build` writes it
 * as dist/cli/config/config-validator.js; under vitest the plugin below answers
 * the import with code generated from the schema as it is now, so tests never
 * run a stale validator.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv } from 'ajv';
import standaloneCode from 'ajv/dist/standalone/index.js';

const SCHEMA = new URL('schema/toolgate.config.schema.json', import.meta.url);
const IMPORTER = '/src/cli/config/load-config.ts';
const MODULE = './config-validator.js';

/** The validator as an ES module: `validateConfig(value)` is true or false and leaves Ajv's errors on `validateConfig.errors`. */
export function configValidatorCode() {
  const ajv = new Ajv({ allErrors: true, strict: false, code: { source: true, esm: true } });
  const schema = JSON.parse(readFileSync(SCHEMA, 'utf8'));
  ajv.addSchema(schema);
  const code = standaloneCode.default(ajv, { validateConfig: schema.$id });
  // Ajv's ES module output still reaches its runtime helpers (string length in code points) through require.
  return `import { createRequire } from 'node:module';\nconst require = createRequire(import.meta.url);\n${code}\n`;
}

/** For vitest: `./config-validator.js`, imported by src/cli/config/load-config.ts, is generated on demand. */
export function configValidatorPlugin() {
  const id = '\0toolgate-config-validator';
  return {
    name: 'toolgate-config-validator-on-demand',
    enforce: 'pre',
    resolveId(source, importer) {
      return source === MODULE && importer?.endsWith(IMPORTER) ? id : undefined;
    },
    load(loading) {
      return loading === id ? configValidatorCode() : undefined;
    },
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(new URL('dist/cli/config/config-validator.js', import.meta.url), configValidatorCode());
}
