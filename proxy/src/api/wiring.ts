/**
 * Connects the API service to the real core modules: the session store
 * (proxy/src/sessions), the lab runner (proxy/src/lab), browser launch
 * (proxy/src/browser). Kept apart from core-service.ts so the
 * service stays testable with fakes.
 */
import { launchBrowser } from '../browser/launch.js';
import { noDisplayReason } from '../browser/display.js';
import { ErrorCodes, NetlensError } from '../errors.js';
import { storeBackend } from './session-backend.js';
import { runLab } from '../lab/runner.js';
import type { BrowserBackend, LabBackend, SessionBackend } from './backends.js';

const realBrowser: BrowserBackend = {
  available: true,
  async launch({ proxyUrl, spkiHash, url }) {
    // Headed for users; headless only where there is no display to show a window on.
    const noDisplay = noDisplayReason();
    const headless = noDisplay !== undefined;
    // Headless with nothing to load would be an invisible about:blank: refuse and say what works instead.
    if (noDisplay && !url) throw noDisplayError(noDisplay, proxyUrl);
    const b = await launchBrowser({ headless, proxyUrl, trustSpkiHashes: [spkiHash] });
    const target = url ?? 'about:blank';
    if (url) {
      // Open the page through DevTools' HTTP endpoint (PUT /json/new) rather than as a second argument.
      await fetch(`http://127.0.0.1:${b.port}/json/new?${encodeURIComponent(url)}`, { method: 'PUT' }).catch(() => undefined);
    }
    const message = headless
      ? `No window: ${noDisplay}, so Chrome (pid ${b.pid}) runs headless. It loaded ${target} through the proxy; its requests appear in Traffic. ` +
        `To browse by hand, set the HTTP and HTTPS proxy of a browser on a desktop to ${proxyUrl} and trust the Netlens CA.`
      : undefined;
    return { pid: b.pid, url: target, headless, ...(message ? { message } : {}), close: () => b.close() };
  },
};

function noDisplayError(why: string, proxyUrl: string): NetlensError {
  const port = new URL(proxyUrl).port;
  return new NetlensError(
    ErrorCodes.BROWSER_NO_DISPLAY,
    `Chrome was not started: ${why}, so its window could not be shown. ` +
      `Browse from a machine with a display instead: set its browser's HTTP and HTTPS proxy to ${proxyUrl} ` +
      `(from another machine, forward the port first: ssh -L ${port}:127.0.0.1:${port} this-host) and trust the Netlens CA (CA certificate button). ` +
      'Or run Netlens on a desktop, where Launch browser opens a window.',
  );
}

const realLab: LabBackend = {
  available: true,
  run: (config, { signal, onProgress }) => runLab(config, { signal, onProgress }),
};

export async function coreBackends(dataDir: string): Promise<{ sessions: SessionBackend; lab: LabBackend; browser: BrowserBackend }> {
  return {
    sessions: storeBackend(dataDir),
    lab: realLab,
    browser: realBrowser,
  };
}
