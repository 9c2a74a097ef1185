/**
 * npm packages that Netlens loads on first use (proxy/src/lazy-require.ts) and ships as one
 * CommonJS file each, built next to every main bundle (dist/cli, dist/electron, dist/bench).
 *
 * Why: undici's HTTP/1.1 client is 20 CommonJS files; resolving and compiling them one by one
 * left ~1.5 MB more resident in the proxy after its first request than one pre-bundled file does
 * (and brought V8's optimizing compiler in early for Node's path normalizer). The proxy loads
 * the file from the app paths' `vendorDir` when there is one (proxy/src/app-paths.ts), else the
 * package itself (running the sources, or a library user).
 */
import fs from 'node:fs';
import path from 'node:path';

/** File name in the bundle directory → the module it bundles. */
export const VENDOR_BUNDLES = { 'undici-client.cjs': 'undici/lib/dispatcher/client.js' };

/**
 * Builds every vendored file into `outdir` with esbuild's `build`, each written under a temporary
 * name and renamed, so that a process loading it never reads a half-written file.
 */
export async function buildVendorBundles(build, root, outdir) {
  fs.mkdirSync(outdir, { recursive: true });
  await Promise.all(
    Object.entries(VENDOR_BUNDLES).map(async ([file, entry]) => {
      const result = await build({
        absWorkingDir: root,
        stdin: { contents: `module.exports = require(${JSON.stringify(entry)});`, resolveDir: root, loader: 'js' },
        bundle: true,
        platform: 'node',
        target: 'node20',
        format: 'cjs',
        write: false,
        logLevel: 'warning',
      });
      const target = path.join(outdir, file);
      const tmp = `${target}.${process.pid}.tmp`;
      fs.writeFileSync(tmp, result.outputFiles[0].contents);
      fs.renameSync(tmp, target);
    }),
  );
}
