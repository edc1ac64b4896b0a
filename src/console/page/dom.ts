import { UNPRINTABLE } from '../../core/action/display-action.js';

/*
 * The page's few DOM helpers. Data from the API is hostile (tool names,
 * arguments, previews come from models), so it is only ever placed with
 * textContent, never as markup.
 */

type Listener = (event: Event) => void;
/** `text` sets textContent, `class` the class name, `on…` a listener; anything else is an attribute. */
export type Attributes = Readonly<Record<string, string | Listener | undefined>>;

export function el<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attributes = {}, ...children: readonly (Node | null | undefined)[]): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined) continue;
    if (typeof value === 'function') node.addEventListener(name.slice(2), value);
    else if (name === 'text') node.textContent = value;
    else if (name === 'class') node.className = value;
    else node.setAttribute(name, value);
  }
  for (const child of children) if (child) node.appendChild(child);
  return node;
}

/** An element the page's markup always has. */
export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  return document.getElementById(id) as T;
}

/** A console API call; the type argument names what that endpoint answers (console-types.ts). */
export function api<T>(path: string, init: RequestInit = {}): Promise<T> {
  return fetch(path, { ...init, headers: { 'content-type': 'application/json', ...(init.headers as Record<string, string> | undefined) } }).then((r) => r.json() as Promise<T>);
}

export function time(ms: number): string {
  return new Date(ms).toLocaleTimeString();
}

export function dur(ms: number | undefined): string {
  return ms === undefined ? '' : `${ms} ms`;
}

// What a model chose can hold characters that hide or reorder text; they are written out as U+XXXX.
const EVERY_UNPRINTABLE = new RegExp(UNPRINTABLE.source, 'g');

export function visible(text: unknown, block = false): string {
  return String(text).replace(EVERY_UNPRINTABLE, (c) => {
    if (block && (c === '\n' || c === '\t')) return c;
    return `\u27e8U+${(c.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}\u27e9`;
  });
}
