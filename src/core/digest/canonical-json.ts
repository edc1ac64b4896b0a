/**
 * RFC 8785 (JCS) canonical JSON: object keys sorted by UTF-16 code units,
 * numbers in ECMAScript shortest form (which is what `JSON.stringify`
 * emits), strings escaped as `JSON.stringify` escapes them, no whitespace.
 * `undefined` members are dropped as JSON drops them. Non-finite numbers,
 * bigints, functions and cycles have no canonical form and throw.
 * (Checked against the reference `canonicalize` package in the tests.)
 */
export function canonicalJson(value: unknown): string {
  const ancestors: object[] = [];
  const encode = (node: unknown): string | undefined => {
    switch (typeof node) {
      case 'string':
      case 'boolean':
        return JSON.stringify(node);
      case 'number':
        if (!Number.isFinite(node)) throw new TypeError('A non-finite number has no canonical JSON form.');
        return JSON.stringify(node);
      case 'undefined':
      case 'function':
      case 'symbol':
        return undefined;
      case 'bigint':
        throw new TypeError('A bigint has no canonical JSON form.');
    }
    if (node === null) return 'null';
    if (typeof node !== 'object') return undefined;
    const withJson = node as { toJSON?: () => unknown };
    if (typeof withJson.toJSON === 'function') return encode(withJson.toJSON());
    if (ancestors.includes(node)) throw new TypeError('A cyclic value has no canonical JSON form.');
    ancestors.push(node);
    let text: string;
    if (Array.isArray(node)) {
      text = `[${node.map((item) => encode(item) ?? 'null').join(',')}]`;
    } else {
      const parts: string[] = [];
      for (const key of Object.keys(node).sort()) {
        const encoded = encode((node as Record<string, unknown>)[key]);
        if (encoded !== undefined) parts.push(`${JSON.stringify(key)}:${encoded}`);
      }
      text = `{${parts.join(',')}}`;
    }
    ancestors.pop();
    return text;
  };
  const text = encode(value);
  if (text === undefined) throw new TypeError('The value has no JSON form.');
  return text;
}
