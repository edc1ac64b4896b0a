/*
 * The configuration's validator, generated from the configuration schema at
 * build time (config-validator.build.mjs writes config-validator.js beside
 * the built load-config.js; vitest generates it on demand).
 */
import type { ValidateFunction } from 'ajv';

export declare const validateConfig: ValidateFunction;
