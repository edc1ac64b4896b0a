import type { ToolInfo } from '../registry/registry-types.js';

/** A unique PascalCase type-name stem per tool key (`read_file@1.0.0` → `ReadFileV1_0_0`). */
export function sdkTypeNames(tools: readonly ToolInfo[]): ReadonlyMap<string, string> {
  const names = new Map<string, string>();
  const taken = new Set<string>();
  for (const tool of tools) {
    const [name = '', version] = tool.key.split('@');
    const stem = name
      .split('_')
      .filter((part) => part.length > 0)
      .map((part) => part[0]?.toUpperCase() + part.slice(1))
      .join('');
    const base = `${stem.length > 0 ? stem : 'Tool'}${version === undefined ? '' : `V${version.replace(/[^A-Za-z0-9]/g, '_')}`}`;
    let unique = base;
    for (let index = 2; taken.has(unique); index += 1) unique = `${base}${index}`;
    taken.add(unique);
    names.set(tool.key, unique);
  }
  return names;
}
