import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['proxy/test/**/*.test.ts', 'renderer/src/**/*.test.{ts,tsx}', 'electron/**/*.test.ts'],
    // Real sockets and real TLS: generous per-test timeout, no parallel files
    // fighting for the two cores (timing-based tests compare conditions side by side).
    testTimeout: 30_000,
    hookTimeout: 30_000,
    fileParallelism: false,
  },
});
