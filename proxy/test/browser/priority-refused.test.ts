/**
 * `--browser-nice` when the system refuses the lower priority: the launch fails with
 * NL_BROWSER_LAUNCH (a run measured at the wrong priority would mislead), and the
 * browser it had started is gone, its profile removed.
 */
import fs from 'node:fs';
import os from 'node:os';
import { describe, expect, it, vi } from 'vitest';
import { chromePath } from './chrome-available.js';
import { alive } from '../proxy/harness.js';

vi.mock('../../src/browser/priority.js', () => ({
  lowerPriority: () => {
    throw Object.assign(new Error('setpriority: EACCES'), { code: 'EACCES' });
  },
}));
const { launchBrowser } = await import('../../src/browser/launch.js');

const profileDirs = () => fs.readdirSync(os.tmpdir()).filter((d) => d.startsWith(`netlens-chrome-${process.pid}-`));

// It looks for leftover browsers in /proc.
const linux = process.platform === 'linux';
if (!linux) console.log(`priority-refused: reads /proc to find leftover browsers, Linux only; skipped on ${process.platform}`);

describe.skipIf(!chromePath || !linux)('a lower browser priority the system refuses (real Chromium)', () => {
  it('fails the launch with NL_BROWSER_LAUNCH and leaves no browser or profile behind', async () => {
    const before = profileDirs();
    const pidsBefore = new Set(fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d)));
    const err = await launchBrowser({ chromePath, niceness: 5 }).then(
      () => undefined,
      (e: unknown) => e as { code?: string; message?: string },
    );
    expect(err?.code).toBe('NL_BROWSER_LAUNCH');
    expect(err?.message).toMatch(/Cannot lower the browser's CPU priority: setpriority: EACCES/);
    // The lab lowers it by default: the message says how to run without.
    expect(err?.message).toMatch(/--browser-nice 0/);
    expect(profileDirs()).toEqual(before);
    // No Chromium started by this launch is still running.
    const chromes = fs
      .readdirSync('/proc')
      .filter((d) => /^\d+$/.test(d) && !pidsBefore.has(d))
      .filter((d) => {
        try {
          return fs.readFileSync(`/proc/${d}/cmdline`, 'utf8').includes('netlens-chrome-');
        } catch {
          return false;
        }
      });
    expect(chromes.filter((p) => alive(Number(p)))).toEqual([]);
  });
});
