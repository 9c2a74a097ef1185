/**
 * Where Netlens's own files are, decided once by the entry point that started the
 * process (bin/netlens.js for the CLI, electron/main.ts, bench/run.ts, a lab child,
 * the test setup) and read by the modules that need a file.
 *
 * Why: a module that found files next to itself (`new URL('../../package.json',
 * import.meta.url)`) broke once bundled, where import.meta.url is the bundle's; only
 * the entry point knows whether it runs from the sources or a bundle, and where the
 * app root is (the repository, or app.asar in a packaged app).
 */
import fs from 'node:fs';
import path from 'node:path';
import { ErrorCodes, NetlensError } from './errors.js';

/** A lab child process entry: the file to fork and the Node flags it needs. */
export interface LabChildEntry {
  file: string;
  execArgv: string[];
}

export interface AppPaths {
  /** The directory holding package.json (the repository, or the packaged app's root). */
  root: string;
  /** The built renderer (index.html and its assets) that `netlens serve` and Electron serve. */
  rendererDir: string;
  /** Netlens's version, from package.json. */
  version: string;
  /** The lab's child-process entries (lab/proxy-child, lab/site/site-child). */
  labChildren: { proxy: LabChildEntry; site: LabChildEntry };
  /**
   * Running bundled: the directory of the bundle, where npm packages loaded on first use sit
   * pre-bundled as one file each (scripts/vendor-bundles.mjs); absent when running the sources.
   */
  vendorDir?: string;
}

let current: AppPaths | undefined;

/** Called once by the entry point, before anything reads the paths. Later calls replace them (tests). */
export function setAppPaths(paths: AppPaths): void {
  current = paths;
}

/** The paths the entry point set; throws if it set none (a missing setAppPaths call is a bug, not a user error). */
export function appPaths(): AppPaths {
  if (!current) {
    throw new NetlensError(
      ErrorCodes.INTERNAL,
      'Netlens app paths are not set: the entry point must call setAppPaths(appPathsFor(...)) first (proxy/src/app-paths.ts)',
    );
  }
  return current;
}

/**
 * Netlens's version when an entry point set the paths, else undefined: a library user
 * or a test helper process that set none still writes HARs, with a placeholder version.
 */
export function appVersion(): string | undefined {
  return current?.version;
}

/**
 * The pre-bundled copy of a package (`undici-client.cjs`) when the entry point runs bundled and it was
 * built; undefined otherwise (the sources, a library user that set no paths, an older build without it).
 */
export function vendoredFile(name: string): string | undefined {
  const dir = current?.vendorDir;
  if (dir === undefined) return undefined;
  const file = path.join(dir, name);
  return fs.existsSync(file) ? file : undefined;
}

/**
 * The paths of an app rooted at `root`. With `bundleDir` the process runs bundled code
 * (dist/cli, dist/electron) and the lab's children are the bundles built next to it
 * (scripts/build-cli.mjs); without, it runs the TypeScript sources and children need tsx.
 */
export function appPathsFor(options: { root: string; bundleDir?: string }): AppPaths {
  const root = path.resolve(options.root);
  const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string };
  const child = (bundled: string, source: string): LabChildEntry =>
    options.bundleDir
      ? { file: path.join(options.bundleDir, `${bundled}.js`), execArgv: [] }
      : { file: path.join(root, 'proxy', 'src', 'lab', `${source}.ts`), execArgv: ['--import', 'tsx'] };
  return {
    root,
    rendererDir: path.join(root, 'dist', 'renderer'),
    version: pkg.version,
    labChildren: { proxy: child('proxy-child', 'proxy-child'), site: child('site-child', 'site/site-child') },
    ...(options.bundleDir ? { vendorDir: options.bundleDir } : {}),
  };
}
