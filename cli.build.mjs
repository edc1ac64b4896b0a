/*
 * The executable as a few files instead of some six hundred: `npm run build`
 * bundles what tsc wrote from dist/cli/bin.js into dist/cli/bin.js and its
 * chunks in dist/cli/chunks/. Node resolves, reads and links every ES module
 * on its own, and an MCP client waits for `toolgate serve` before its first
 * call: bundled, a gateway starts in about three fifths of the time. Each
 * command's code stays a chunk loaded when the command runs, as before.
 *
 * The packages a command loads as hundreds of small modules (the MCP SDK,
 * zod with every locale, zod-to-json-schema, and ajv, which every call that
 * validates loads: about 50 ms of modules at a start) are bundled too, with
 * what they import in their own name, and their licenses written beside the
 * chunks; every other package toolgate declares stays an import of its own
 * (the native SQLite driver, undici). A bundled package is the version the
 * lockfile held when toolgate was built: toolgate pins each package it
 * declares, and what those import in their own name (ajv-formats, fast-uri)
 * is taken as resolved then, not as an install resolves it later. The
 * library's entry points (dist/core, dist/node, …) are left as tsc wrote them.
 */
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { fileURLToPath } from 'node:url';
import { rolldown } from 'rolldown';

const CLI = fileURLToPath(new URL('dist/cli/', import.meta.url));
const CHUNKS = 'chunks';
const BUNDLED_PACKAGES = ['@modelcontextprotocol/sdk', 'zod', 'zod-to-json-schema', 'ajv'];

const MANIFEST = JSON.parse(readFileSync(new URL('package.json', import.meta.url), 'utf8'));
const DECLARED = new Set([...Object.keys(MANIFEST.dependencies), ...Object.keys(MANIFEST.peerDependencies)]);

const packageOf = (id) => /^(@[^/]+\/[^/]+|[^./][^/]*)/.exec(id)?.[1];
/**
 * A package this one declares, but for those named above, is imported where it is installed, and so is Node's own
 * module; everything else is bundled: this project's paths, and what a bundled package imports in its own name
 * (ajv-formats, cross-spawn). Installed by pnpm, toolgate reaches only the packages it declares, and `serve` did not start.
 */
const isExternal = (id) => id.startsWith('node:') || builtinModules.includes(id) || (DECLARED.has(packageOf(id)) && !BUNDLED_PACKAGES.includes(packageOf(id)));

/** The name a package gives its license file (`LICENSE`, or `license` as sindresorhus' packages have it). */
const licenseFile = (folder) => readdirSync(folder).find((name) => /^licen[cs]e(\.md|\.txt)?$/i.test(name)) ?? 'LICENSE';

/** The license of each package whose code a chunk holds, as the package ships it. */
function licenses(chunks) {
  const folders = new Set(chunks.flatMap((chunk) => chunk.moduleIds).map((id) => /^(.*\/node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(id)?.[1]).filter((folder) => folder !== undefined));
  return [...folders].sort().map((folder) => {
    const manifest = JSON.parse(readFileSync(`${folder}/package.json`, 'utf8'));
    return `## ${manifest.name} ${manifest.version} (${manifest.license})\n\n${readFileSync(`${folder}/${licenseFile(folder)}`, 'utf8').trim()}\n`;
  });
}

rmSync(`${CLI}${CHUNKS}`, { recursive: true, force: true });
const bundle = await rolldown({ input: `${CLI}bin.js`, platform: 'node', external: isExternal, logLevel: 'warn' });
const { output } = await bundle.write({ dir: CLI, format: 'esm', entryFileNames: 'bin.js', chunkFileNames: `${CHUNKS}/[name]-[hash].js`, sourcemap: true });
await bundle.close();
const notices = licenses(output.filter((file) => file.type === 'chunk'));
writeFileSync(`${CLI}${CHUNKS}/THIRD-PARTY-LICENSES.md`, `# Packages bundled into the toolgate executable\n\n${notices.join('\n')}`);
