/**
 * vitest setupFiles: tests run the core from its TypeScript sources, as the test
 * process's entry point they set the app paths once (see proxy/src/app-paths.ts).
 */
import path from 'node:path';
import { appPathsFor, setAppPaths } from '../src/app-paths.js';

setAppPaths(appPathsFor({ root: path.resolve(import.meta.dirname, '../..') }));
