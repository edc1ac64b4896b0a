// Code Mode's sandbox: QuickJS compiled to WebAssembly, bridged to a registry's governed tools.
export { createQuickJsRuntime, type QuickJsRuntimeOptions } from './create-quickjs-runtime.js';
