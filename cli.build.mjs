/*
 * The executable as a few files instead of some six hundred: `npm run build`
 * bundles what tsc wrote from dist/cli/bin.js into dist/cli/bin.js and its
 * chunks in dist/cli/chunks/. Node resolves, reads and links every ES module
 * on its own, and an MCP client waits for `toolgate serve` before its first
 * call: bundled, a gateway starts in about three fifths of the time. Each
 * command's code stays a chunk loaded when the command runs, as before.
 *
 * The packages `serve` loads as hundreds of small modules (the MCP SDK, zod
 * with every locale, zod-to-json-schema) are bundled too, and their licenses
 * written beside the chunks; every other package stays an import of its own
 * (the native SQLite driver, ajv, undici). The library's entry points
 * (dist/core, dist/node, …) are left as tsc wrote them.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { rolldown } from 'rolldown';

const CLI = fileURLToPath(new URL('dist/cli/', import.meta.url));
const CHUNKS = 'chunks';
const BUNDLED_PACKAGES = ['@modelcontextprotocol/sdk', 'zod', 'zod-to-json-schema'];

const packageOf = (id) => /^(@[^/]+\/[^/]+|[^./][^/]*)/.exec(id)?.[1];
/** A path in this project is bundled, and so is a package named above; any other package is imported where it is installed. */
const isExternal = (id) => !id.startsWith('.') && !id.startsWith('/') && !id.startsWith('\0') && !BUNDLED_PACKAGES.includes(packageOf(id));

/** The license of each package whose code a chunk holds, as the package ships it. */
function licenses(chunks) {
  const folders = new Set(chunks.flatMap((chunk) => chunk.moduleIds).map((id) => /^(.*\/node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(id)?.[1]).filter((folder) => folder !== undefined));
  return [...folders].sort().map((folder) => {
    const manifest = JSON.parse(readFileSync(`${folder}/package.json`, 'utf8'));
    return `## ${manifest.name} ${manifest.version} (${manifest.license})\n\n${readFileSync(`${folder}/LICENSE`, 'utf8').trim()}\n`;
  });
}

rmSync(`${CLI}${CHUNKS}`, { recursive: true, force: true });
const bundle = await rolldown({ input: `${CLI}bin.js`, platform: 'node', external: isExternal, logLevel: 'warn' });
const { output } = await bundle.write({ dir: CLI, format: 'esm', entryFileNames: 'bin.js', chunkFileNames: `${CHUNKS}/[name]-[hash].js`, sourcemap: true });
await bundle.close();
const notices = licenses(output.filter((file) => file.type === 'chunk'));
writeFileSync(`${CLI}${CHUNKS}/THIRD-PARTY-LICENSES.md`, `# Packages bundled into the toolgate executable\n\n${notices.join('\n')}`);
