/** Collects up to `cap` bytes of one output stream; reports when more arrived. */
export class BoundedSink {
  readonly #cap: number;
  readonly #chunks: Buffer[] = [];
  #size = 0;
  truncated = false;
  constructor(cap: number) {
    this.#cap = cap;
  }
  /** Keeps what fits; `false` once the cap is passed, so the caller can stop the writer. */
  push(chunk: Buffer): boolean {
    const room = this.#cap - this.#size;
    if (chunk.byteLength > room) {
      if (room > 0) this.#chunks.push(chunk.subarray(0, room));
      this.#size = this.#cap;
      this.truncated = true;
      return false;
    }
    this.#chunks.push(chunk);
    this.#size += chunk.byteLength;
    return true;
  }
  text(): string {
    return Buffer.concat(this.#chunks, this.#size).toString('utf8');
  }
}
