import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { newQuickJSWASMModuleFromVariant, newVariant, RELEASE_SYNC, type QuickJSWASMModule } from 'quickjs-emscripten';

/** The two WebAssembly entry points used here (the project's `lib` carries no WebAssembly declarations). */
declare const WebAssembly: {
  compile(bytes: Uint8Array): Promise<WasmModule>;
  readonly Memory: new (descriptor: { initial: number; maximum: number }) => object;
};
type WasmModule = object;

const PAGE = 65_536;
/** The release build's data and stack need its declared initial memory (16 MiB). */
export const QUICKJS_BASE_MEMORY_BYTES = 256 * PAGE;

let compiled: Promise<WasmModule | undefined> | undefined;

/**
 * The compiled QuickJS WebAssembly module, once per process. Each sandbox
 * instance gets its own linear memory; only the code is shared. When the
 * file cannot be located, the variant loads it itself (slower, same result).
 */
function compiledQuickJs(): Promise<WasmModule | undefined> {
  compiled ??= (async () => {
    try {
      const fromPackage = createRequire(createRequire(import.meta.url).resolve('quickjs-emscripten'));
      return await WebAssembly.compile(await readFile(fromPackage.resolve('@jitl/quickjs-wasmfile-release-sync/wasm')));
    } catch {
      return undefined;
    }
  })();
  return compiled;
}

/**
 * QuickJS instances whose WebAssembly memory cannot grow past the limit.
 * QuickJS's own allocator limit does not add up large blocks in this build
 * (upstream accounting reports 0 bytes usable size under Emscripten), so the
 * hard ceiling is the linear memory's fixed `maximum`: an allocation beyond
 * it fails inside QuickJS as "out of memory", never in the host.
 *
 * One instance runs one script at a time. Instances are reused (a fresh
 * QuickJS runtime and context per script, so no script state survives), but
 * dropped after any fault or out-of-memory.
 */
export class QuickJsModulePool {
  readonly #memoryLimitBytes: number;
  readonly #maxIdle: number;
  readonly #idle: QuickJSWASMModule[] = [];

  constructor(memoryLimitBytes: number, maxIdle: number) {
    this.#memoryLimitBytes = memoryLimitBytes;
    this.#maxIdle = maxIdle;
  }

  async acquire(): Promise<QuickJSWASMModule> {
    const idle = this.#idle.pop();
    if (idle !== undefined) return idle;
    const wasmModule = await compiledQuickJs();
    const wasmMemory = new WebAssembly.Memory({ initial: QUICKJS_BASE_MEMORY_BYTES / PAGE, maximum: Math.floor(this.#memoryLimitBytes / PAGE) });
    return newQuickJSWASMModuleFromVariant(newVariant(RELEASE_SYNC, wasmModule === undefined ? { wasmMemory } : { wasmModule, wasmMemory }));
  }

  release(module: QuickJSWASMModule, reusable: boolean): void {
    if (reusable && this.#idle.length < this.#maxIdle) this.#idle.push(module);
  }
}
