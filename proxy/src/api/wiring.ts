/**
 * Connects the API service to the real core modules: HAR reader and recorder
 * (proxy/src/har), browser launch (proxy/src/browser), and — as they land —
 * the session store and the lab runner. Kept apart from core-service.ts so the
 * service stays testable with fakes.
 */
import type { Exchange } from '../model.js';
import { ErrorCodes, NetlensError } from '../errors.js';
import { parseHar, formatIssue } from '../har/reader.js';
import { exchangeToEntry } from '../har/entry.js';
import { NETLENS_CREATOR } from '../har/writer.js';
import { launchBrowser } from '../browser/launch.js';
import type { HarLog } from './har-types.js';
import { memorySessions, unavailableLab, type BrowserBackend, type LabBackend, type SessionBackend } from './backends.js';

/** HAR text → log, with the HAR module's tolerant reader (clear errors naming the bad field). */
export function parseHarForImport(fileName: string, text: string): HarLog {
  const result = parseHar(text);
  if (!result.har || result.errors.length > 0) {
    const details = result.errors.slice(0, 3).map((e) => formatIssue('error', e)).join('; ');
    throw new NetlensError(ErrorCodes.API_BAD_REQUEST, `${fileName} cannot be opened as a HAR file: ${details || 'unknown error'}.`);
  }
  return result.har.log as HarLog;
}

/** Live exchanges → a HAR 1.2 log (the HAR module's conversion, bodies included). */
export function captureToHar(exchanges: Exchange[]): HarLog {
  return {
    version: '1.2',
    creator: { ...NETLENS_CREATOR },
    pages: [],
    entries: exchanges.map((x) => exchangeToEntry(x)),
  } as HarLog;
}

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

export async function coreBackends(_dataDir: string): Promise<{ sessions: SessionBackend; lab: LabBackend; browser: BrowserBackend }> {
  return {
    sessions: memorySessions({ parse: parseHarForImport, captureLog: captureToHar }),
    lab: unavailableLab,
    browser: realBrowser,
  };
}
