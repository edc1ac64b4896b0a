import { fileURLToPath } from 'node:url';
import { build, defineConfig, type InlineConfig, type Plugin, type Rolldown } from 'vite';

/*
 * Bundles the console page's TypeScript (src/console/page, type-checked by
 * its own tsconfig against console-types.ts) into one classic script, and
 * writes it as the module `console-script.js` the server inlines into the
 * page: `npm run build` puts it in dist/console; under vitest the plugin
 * below answers the import with a fresh bundle, so tests never run a stale
 * page.
 */

const ENTRY = fileURLToPath(new URL('src/console/page/console-page-main.ts', import.meta.url));
const MODULE = 'console-script.js';
const DECLARATION = `/** The console page's script, bundled at build time from src/console/page. */\nexport declare const consoleScript: string;\n`;

/** Turns the bundled script into the module that exports it as a string, with its declaration. */
function asModule(): Plugin {
  return {
    name: 'toolgate-console-script',
    generateBundle(_options, bundle) {
      const chunks = Object.values(bundle).filter((file): file is Rolldown.OutputChunk => file.type === 'chunk');
      const [chunk] = chunks;
      if (chunk === undefined || chunks.length !== 1) throw new Error(`the console page must bundle into one script, got ${chunks.length}`);
      // Inlined into a <script> element: the sequence that would end it early must not appear.
      if (/<\/script/i.test(chunk.code)) throw new Error('the console page script holds "</script", which would end the inline script');
      delete bundle[chunk.fileName];
      this.emitFile({ type: 'asset', fileName: MODULE, source: `export const consoleScript = ${JSON.stringify(chunk.code)};\n` });
      this.emitFile({ type: 'asset', fileName: 'console-script.d.ts', source: DECLARATION });
    },
  };
}

const config: InlineConfig = {
  configFile: false,
  logLevel: 'warn',
  publicDir: false,
  plugins: [asModule()],
  build: {
    outDir: fileURLToPath(new URL('dist/console', import.meta.url)),
    emptyOutDir: false,
    target: 'es2020',
    minify: false,
    sourcemap: false,
    copyPublicDir: false,
    lib: { entry: ENTRY, formats: ['iife'], name: 'toolgateConsole', fileName: () => 'console-page.js' },
  },
};

/** For vitest: `./console-script.js`, imported by src/console/console-page.ts, is bundled on demand. */
export function consoleScriptPlugin(): Plugin {
  const id = '\0toolgate-console-script';
  return {
    name: 'toolgate-console-script-on-demand',
    enforce: 'pre',
    resolveId(source, importer) {
      return source === `./${MODULE}` && importer?.endsWith('/src/console/console-page.ts') ? id : undefined;
    },
    async load(loading) {
      if (loading !== id) return undefined;
      const built = (await build({ ...config, build: { ...config.build, write: false } })) as Rolldown.RolldownOutput | Rolldown.RolldownOutput[];
      const module = [built].flat().flatMap((output) => output.output).find((file) => file.fileName === MODULE);
      if (module?.type !== 'asset') throw new Error('the console page bundle is missing');
      return String(module.source);
    },
  };
}

export default defineConfig(config);
