/**
 * The lab's child-process entries (proxy/src/lab/child-process.ts), bundled next to each
 * main bundle (dist/cli, dist/electron) under these names; proxy/src/app-paths.ts
 * (appPathsFor with bundleDir) forks them from there.
 */
export const CHILD_ENTRIES = { 'proxy-child': 'proxy/src/lab/proxy-child.ts', 'site-child': 'proxy/src/lab/site/site-child.ts' };
