/**
 * Connects the API service to the real core modules: the session store
 * (proxy/src/sessions), the lab runner (proxy/src/lab), browser launch
 * (proxy/src/browser). Kept apart from core-service.ts so the
 * service stays testable with fakes.
 */
import { launchBrowser } from '../browser/launch.js';
import { storeBackend } from '../sessions/backend.js';
import { runLab } from '../lab/runner.js';
import type { BrowserBackend, LabBackend, SessionBackend } from './backends.js';

const realBrowser: BrowserBackend = {
  available: true,
  async launch({ proxyUrl, spkiHash, url }) {
    // Headed for users; headless only where there is no display to show a window on.
    const headless = process.platform === 'linux' && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY;
    const b = await launchBrowser({ headless, proxyUrl, trustSpkiHashes: [spkiHash] });
    const target = url ?? 'about:blank';
    if (url) {
      // Open the page through DevTools' HTTP endpoint (PUT /json/new) rather than as a second argument.
      await fetch(`http://127.0.0.1:${b.port}/json/new?${encodeURIComponent(url)}`, { method: 'PUT' }).catch(() => undefined);
    }
    return { pid: b.pid, url: target, close: () => b.close() };
  },
};

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
