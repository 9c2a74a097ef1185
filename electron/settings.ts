/**
 * Desktop settings persisted in Electron's userData directory: the proxy
 * configuration the user last chose. Read defensively (a hand-edited or
 * truncated file falls back to defaults, never stops the app from starting).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { ProxyConfig } from '../proxy/src/api/contract.js';
import { MAX_BODY_CAPTURE_LIMIT, MAX_CA_FILES } from '../proxy/src/api/proxy-config.js';

export interface DesktopSettings {
  proxy: Partial<ProxyConfig>;
}

export const SETTINGS_FILE = 'settings.json';

export function sanitizeSettings(raw: unknown): DesktopSettings {
  const proxy: Partial<ProxyConfig> = {};
  const p = (raw as { proxy?: Record<string, unknown> } | null)?.proxy;
  if (p && typeof p === 'object') {
    if (Number.isInteger(p.port) && (p.port as number) >= 0 && (p.port as number) <= 65535) proxy.port = p.port as number;
    for (const k of ['intercept', 'http2', 'nagle', 'insecureUpstream'] as const) if (typeof p[k] === 'boolean') proxy[k] = p[k] as boolean;
    const limit = p.bodyCaptureLimit;
    if (Number.isInteger(limit) && (limit as number) >= 0 && (limit as number) <= MAX_BODY_CAPTURE_LIMIT)
      proxy.bodyCaptureLimit = limit as number;
    // Paths only; whether each file is still a usable CA is checked by the core when the proxy starts.
    const files = p.upstreamCAFiles;
    if (Array.isArray(files)) {
      proxy.upstreamCAFiles = files
        .filter((f): f is string => typeof f === 'string' && path.isAbsolute(f) && f.length <= 4096)
        .slice(0, MAX_CA_FILES);
    }
  }
  return { proxy };
}

export function loadSettings(dir: string): DesktopSettings {
  try {
    return sanitizeSettings(JSON.parse(fs.readFileSync(path.join(dir, SETTINGS_FILE), 'utf8')));
  } catch {
    return { proxy: {} };
  }
}

/** Written to a temp file and renamed: a crash mid-write never leaves half a file. */
export function saveSettings(dir: string, settings: DesktopSettings): void {
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, SETTINGS_FILE);
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify(sanitizeSettings(settings), null, 2) + '\n');
  fs.renameSync(tmp, file);
}
