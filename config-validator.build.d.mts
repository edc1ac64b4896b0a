import type { Plugin } from 'vite';

/** The configuration's validator as an ES module, generated from schema/toolgate.config.schema.json. */
export declare function configValidatorCode(): string;
/** For vitest: answers load-config.ts's import of `./config-validator.js` with code generated from the schema as it is now. */
export declare function configValidatorPlugin(): Plugin;
