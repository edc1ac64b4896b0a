/**
 * The console page's script: src/console/page bundled into one classic
 * script at build time (vite.console.config.ts writes console-script.js
 * next to the built server; under vitest it is bundled on demand).
 */
export declare const consoleScript: string;
