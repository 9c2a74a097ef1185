/**
 * The CLI listens for SIGINT/SIGTERM only while a command that stops on them runs: a listener left behind
 * would swallow Ctrl-C in a command that does not wait for it, and in-process runs (tests) piled them up.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from './run-cli.js';

const listeners = () => [process.listenerCount('SIGINT'), process.listenerCount('SIGTERM')];

describe('CLI stop signal', () => {
  it('a command that does not wait for Ctrl-C adds no listener; one that does removes its own when it returns', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nl-stop-'));
    try {
      const before = listeners();
      const ca = await cli(['ca', '--data-dir', dir]);
      expect(ca.code).toBe(0);
      expect(listeners()).toEqual(before);
      // `lab` reads the stop signal first, then refuses the flag value.
      const lab = await cli(['lab', '--runs', '0', '--data-dir', dir]);
      expect(lab.code).toBe(2);
      expect(listeners()).toEqual(before);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
