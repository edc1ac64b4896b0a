import { createRequire } from 'node:module';
import type * as Yaml from 'yaml';

/**
 * The YAML parser, loaded the first time a YAML file is read: a process
 * that reads none never loads its seventy-odd modules (about 30 ms).
 */
export function yamlParser(): typeof Yaml {
  return createRequire(import.meta.url)('yaml') as typeof Yaml;
}
