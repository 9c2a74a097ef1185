/**
 * Loads a CommonJS package on first use instead of at startup.
 *
 * Why: the proxy's hot path needs none of the browser-automation, WebSocket or
 * schema-validation packages, and each costs megabytes of memory once loaded.
 * A static import would load them in every process, and in a bundle
 * (dist/cli, dist/electron) esbuild hoists external imports to the top, so a
 * dynamic import of our own module would not help; a deferred require does.
 */
import { createRequire } from 'node:module';
import { vendoredFile } from './app-paths.js';

const require = createRequire(import.meta.url);

export function lazyRequire<T>(id: string): () => T {
  let loaded: T | undefined;
  return () => (loaded ??= require(id) as T);
}

/**
 * Like lazyRequire, but a bundled Netlens loads the package's pre-bundled copy `file` from
 * next to its bundle (scripts/vendor-bundles.mjs: one file instead of many, less memory).
 */
export function lazyRequireVendored<T>(id: string, file: string): () => T {
  let loaded: T | undefined;
  return () => (loaded ??= require(vendoredFile(file) ?? id) as T);
}
