import type { ToolgateError } from '../errors/toolgate-error.js';

/**
 * A settings file's JSON, read only when every object in it names each key
 * once. `JSON.parse` keeps the last of two same-named keys, so
 * `{"deny": ["Read(.env)"], "deny": []}` read as no deny at all while the
 * file shows one to whoever reads or pins it; another parser keeps the
 * first. Such a file is refused (`failure` with the problem), naming the
 * key, as is text that is not JSON. The parser's own message is not passed
 * on: it quotes the text.
 */
export function parseSettingsJson(text: string, failure: (problem: string) => ToolgateError): unknown {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text) as unknown;
  } catch {
    throw failure('is not valid JSON');
  }
  const twice = duplicateKey(text);
  if (twice !== undefined) throw failure(`names the key "${twice}" twice in one object, which JSON readers settle differently`);
  return parsed;
}

/** The first key an object of a valid JSON text holds twice, as its path (`permissions.deny`); a loop, whatever the depth. */
function duplicateKey(text: string): string | undefined {
  // One entry per open object or array: the keys seen (undefined for an array) and the key it is the value of.
  const open: { readonly keys: Set<string> | undefined; readonly name: string }[] = [];
  let expectKey = false;
  let lastKey = '';
  for (let index = 0; index < text.length; index += 1) {
    const char = text[index];
    if (char === '"') {
      let end = index + 1;
      while (text[end] !== '"') end += text[end] === '\\' ? 2 : 1;
      const keys = open.at(-1)?.keys;
      if (expectKey && keys !== undefined) {
        const key = JSON.parse(text.slice(index, end + 1)) as string;
        if (keys.has(key)) return [...open.map((entry) => entry.name), key].filter((name) => name !== '').join('.').slice(0, 120);
        keys.add(key);
        lastKey = key;
        expectKey = false;
      }
      index = end;
    } else if (char === '{' || char === '[') {
      open.push({ keys: char === '{' ? new Set() : undefined, name: lastKey });
      expectKey = char === '{';
      lastKey = '';
    } else if (char === '}' || char === ']') {
      open.pop();
      lastKey = '';
    } else if (char === ',') {
      expectKey = open.at(-1)?.keys !== undefined;
      lastKey = '';
    }
  }
  return undefined;
}
