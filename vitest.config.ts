import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['proxy/test/**/*.test.ts', 'renderer/src/**/*.test.{ts,tsx}', 'electron/**/*.test.ts'],
    // Real sockets and real TLS: generous per-test timeout, no parallel files
    // fighting for the two cores (timing-based tests compare conditions side by side).
    testTimeout: 30_000,
    hookTimeout: 30_000,
    fileParallelism: false,
    // Tests of `netlens serve` and of the Electron window serve the built UI: build it
    // first when dist/renderer is missing or older than its sources (as the e2e run does).
    globalSetup: ['e2e/global-setup.ts'],
    // Every test file runs the core from its sources: set the app paths as an entry point would.
    setupFiles: ['proxy/test/setup-app-paths.ts'],
  },
});
