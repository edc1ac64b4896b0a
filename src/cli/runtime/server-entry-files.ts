import { readFileSync } from 'node:fs';
import path from 'node:path';

/** What node adds to a script's name it finds no file at (`node servers/notes` runs `servers/notes.js`), and python's own. */
const COMPLETED_SUFFIXES = ['.js', '.json', '.node', '.cjs', '.mjs', '.py'];

/**
 * What runs when the script named is a folder: node reads its `package.json`
 * and runs its `main`, else its `index.js`; python runs its `__main__.py`.
 */
const FOLDER_ENTRIES = ['package.json', 'index.js', 'index.json', 'index.node', 'index.cjs', 'index.mjs', '__main__.py', '__init__.py'];

/**
 * The files a runtime runs for a script named by `place`, besides the name
 * itself: the names node completes it to, and, were it a folder, its entry
 * (the `main` its `package.json` names, completed the same way). Each counts
 * whether or not it exists: a name that leads nowhere yet runs what a model
 * makes there at the next start.
 */
export function completedEntryFiles(place: string): string[] {
  const files = completed(place);
  const main = packageMain(path.join(place, 'package.json'));
  if (main !== undefined) {
    const entry = path.resolve(place, main);
    files.push(entry, ...completed(entry));
  }
  return files;
}

/**
 * The files `python -m name` runs or imports from the folder it starts in:
 * the module (`a/b.py`, or the package `a/b` with its `__main__.py`) and the
 * `__init__.py` of each package on the way, which python runs first. A name
 * that is not a dotted module name names none.
 */
export function moduleFiles(start: string, name: string): string[] {
  if (!/^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*$/.test(name)) return [];
  const parts = name.split('.');
  const packages = parts.slice(0, -1).map((_, index) => path.join(start, ...parts.slice(0, index + 1), '__init__.py'));
  const module = path.join(start, ...parts);
  return [...packages, `${module}.py`, path.join(module, '__main__.py'), path.join(module, '__init__.py')];
}

function completed(place: string): string[] {
  return [...COMPLETED_SUFFIXES.map((suffix) => `${place}${suffix}`), ...FOLDER_ENTRIES.map((entry) => path.join(place, entry))];
}

/** The `main` a folder's `package.json` names, when it is one and names one. */
function packageMain(manifest: string): string | undefined {
  try {
    const main = (JSON.parse(readFileSync(manifest, 'utf8')) as { main?: unknown }).main;
    return typeof main === 'string' && main !== '' ? main : undefined;
  } catch {
    return undefined;
  }
}
