/**
 * `netlens serve --open`: open a URL in the user's browser, and say so when that
 * cannot work (no display, no opener) instead of doing nothing silently.
 */
import { spawn } from 'node:child_process';
import { noDisplayReason } from '../browser/display.js';

export { noDisplayReason };

/** The opener for this platform: `open` (macOS), `start` (Windows), `xdg-open` elsewhere. */
function opener(url: string, platform: NodeJS.Platform): [string, string[]] {
  if (platform === 'darwin') return ['open', [url]];
  if (platform === 'win32') return ['cmd', ['/c', 'start', '', url]];
  return ['xdg-open', [url]];
}

/**
 * Starts the platform's opener; resolves with undefined once it was started and
 * did not fail within `waitMs`, or with the reason it could not open the URL.
 * Never rejects and never keeps the process alive.
 */
export function openInBrowser(
  url: string,
  env: NodeJS.ProcessEnv,
  platform: NodeJS.Platform = process.platform,
  waitMs = 3000,
): Promise<string | undefined> {
  const noDisplay = noDisplayReason(env, platform);
  if (noDisplay) return Promise.resolve(noDisplay);
  const [cmd, args] = opener(url, platform);
  return new Promise((resolve) => {
    let done = false;
    const finish = (why: string | undefined) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve(why);
    };
    // xdg-open exits non-zero when it finds no browser; a browser it starts may run for hours, so stop waiting after waitMs.
    const timer = setTimeout(() => finish(undefined), waitMs);
    timer.unref();
    try {
      const child = spawn(cmd, args, { stdio: 'ignore', detached: true, env });
      child.once('error', (err: NodeJS.ErrnoException) =>
        finish(err.code === 'ENOENT' ? `"${cmd}" is not installed` : `"${cmd}" failed: ${err.message}`),
      );
      child.once('exit', (code) => finish(code ? `"${cmd}" exited with code ${code} (no browser configured?)` : undefined));
      child.unref();
    } catch (err) {
      finish(`"${cmd}" could not start: ${(err as Error).message}`);
    }
  });
}
