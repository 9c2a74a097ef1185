// Types of eslint.layers.js for its TypeScript readers (proxy/test/layers/imports.test.ts).
export interface ProxyLayer {
  name: string;
  why: string;
  /** Folders of proxy/src, or top-level module names without `.ts`. */
  members: string[];
}
export interface LayerException {
  /** Importing module, relative to proxy/src, or '*' for any. */
  from: string;
  /** Imported module, relative to proxy/src. */
  to: string;
  /** Only `import type` is allowed through this exception. */
  typeOnly: boolean;
  reason: string;
}
export const PROXY_LAYERS: ProxyLayer[];
export const LAYER_EXCEPTIONS: LayerException[];
export const LAYERS_ROOT: string;
declare const config: object[];
export default config;
