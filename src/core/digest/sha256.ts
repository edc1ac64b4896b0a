const encoder = new TextEncoder();
const HEX = Array.from({ length: 256 }, (_, index) => index.toString(16).padStart(2, '0'));

/** SHA-256 of UTF-8 text via Web Crypto, as lowercase hex. */
export async function sha256Hex(text: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', encoder.encode(text)));
  let hex = '';
  for (const byte of digest) hex += HEX[byte];
  return hex;
}
