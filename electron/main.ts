/**
 * Electron main process: a thin host around the same core `netlens serve` uses.
 *
 * On start it loads settings, creates the core service (CA, proxy, sessions,
 * lab, browser launch) in-process, registers the IPC API (ipc.ts), opens the
 * locked-down window (window.ts) on `netlens://app/`, and builds the menu
 * (menu.ts). On quit it keeps the live capture as a session, then stops the
 * proxy, lab runs and launched browsers before letting Electron exit.
 *
 * Bundled to dist/electron/main.mjs by scripts/build-electron.mjs.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { app, BrowserWindow, ipcMain, Menu, protocol, session, shell } from 'electron';
import { CoreService } from '../proxy/src/api/core-service.js';
import { coreBackends } from '../proxy/src/api/wiring.js';
import type { NetlensEvent } from '../proxy/src/api/contract.js';
import { defaultDataDir } from '../proxy/src/options.js';
import { appPathsFor, setAppPaths } from '../proxy/src/app-paths.js';
import { keepWasmOnBaselineTier } from '../proxy/src/upstream/wasm-tiering.js';
import { steadyHeapGrowth } from '../proxy/src/server/heap-growth.js';
import { useFastAsyncBind } from '../proxy/src/upstream/async-bind.js';
import { EVENT_CHANNEL, MENU_CHANNEL, type MenuMessage } from './channels.js';
import { registerApi } from './ipc.js';
import { buildMenuTemplate } from './menu.js';
import { menuActions, saveCaptureName } from './actions.js';
import { loadSettings, saveSettings } from './settings.js';
import {
  APP_SCHEME,
  APP_URL,
  appFileFor,
  appResponseHeaders,
  isPermissionAllowed,
  lockDownContents,
  lockDownDevTools,
  windowOptions,
  type ContentsLike,
  type DevToolsContentsLike,
} from './window.js';

// The proxy runs in this process: set before it opens an upstream connection (wasm-tiering.ts). At run time, not
// with app.commandLine.appendSwitch('js-flags', …): that switch reaches renderers, not the main process once started.
keepWasmOnBaselineTier();
// HTTP/2 upstream requests without Node's costly AsyncResource.bind, where it still has it (async-bind.ts).
useFastAsyncBind();
// Large bodies after many small requests without a full collection every few MiB (heap-growth.ts).
steadyHeapGrowth();
const here = path.dirname(fileURLToPath(import.meta.url));
const appRoot = app.getAppPath();
// This process's entry point: the core finds package.json and the renderer under the app's root,
// and forks the lab's children from the bundles built next to this one (scripts/build-electron.mjs).
const paths = appPathsFor({ root: appRoot, bundleDir: here });
setAppPaths(paths);
const RENDERER_DIR = paths.rendererDir;
const PRELOAD = path.join(here, 'preload.cjs');
const ICON = path.join(appRoot, 'electron', 'assets', 'icon.png');

// Must happen before 'ready': a standard, secure scheme gets a real origin (netlens://app).
// Not corsEnabled: that privilege would let other origins read the app's files.
protocol.registerSchemesAsPrivileged([{ scheme: APP_SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true } }]);

let service: CoreService | undefined;
let win: BrowserWindow | undefined;
let unregisterApi: (() => void) | undefined;
let savedCount = 0;
let shutdown: Promise<void> | undefined;
let shutdownDone = false;

// Tests (and users who want a second profile) point userData elsewhere; set before the instance lock, which lives there.
if (process.env.NETLENS_USER_DATA_DIR) app.setPath('userData', path.resolve(process.env.NETLENS_USER_DATA_DIR));

// Two instances would fight over the proxy port and the recording.
if (!app.requestSingleInstanceLock()) {
  app.quit();
} else {
  app.on('second-instance', () => {
    if (win) {
      if (win.isMinimized()) win.restore();
      win.focus();
    }
  });
  app.whenReady().then(start).catch(fatal);
}

function fatal(err: unknown): void {
  console.error(`Netlens failed to start: ${(err as Error)?.stack ?? err}`);
  app.exit(1);
}

/** Every web contents (the window, and anything that might appear later) gets the same lockdown. */
app.on('web-contents-created', (_e, contents) => {
  lockDownContents(contents as unknown as ContentsLike, (url) => shell.openExternal(url));
  if (app.isPackaged) lockDownDevTools(contents as unknown as DevToolsContentsLike);
});

function lockDownSession(): void {
  const ses = session.defaultSession;
  ses.setPermissionRequestHandler((_wc, permission, callback, details) => callback(isPermissionAllowed(permission, details.requestingUrl)));
  ses.setPermissionCheckHandler((_wc, permission, requestingOrigin) => isPermissionAllowed(permission, requestingOrigin));
  // The renderer is local files only: serve them from the app scheme with the CSP on every response.
  protocol.handle(APP_SCHEME, async (request) => {
    const file = appFileFor(RENDERER_DIR, request.url);
    if (!file) return new Response('Not found', { status: 404 });
    try {
      const data = await fs.promises.readFile(file);
      // A Buffer is a Uint8Array; the cast only satisfies lib.dom's ArrayBuffer-vs-SharedArrayBuffer typing.
      return new Response(data as unknown as BodyInit, { headers: appResponseHeaders(file) });
    } catch {
      const missing = !fs.existsSync(path.join(RENDERER_DIR, 'index.html'));
      return new Response(missing ? 'The Netlens UI is not built: run "npm run build", then restart.' : 'Not found', {
        status: missing ? 503 : 404,
      });
    }
  });
}

function send(channel: string, payload: unknown): void {
  if (win && !win.isDestroyed()) win.webContents.send(channel, payload);
}

function tellUi(message: MenuMessage): void {
  if (win) win.show();
  send(MENU_CHANNEL, message);
}

async function refreshMenu(): Promise<void> {
  if (!service) return;
  const [status, sessions] = await Promise.all([service.getStatus(), service.listSessions().catch(() => [])]);
  const recentSessions = [...sessions].sort((a, b) => b.createdAt.localeCompare(a.createdAt));
  const actions = menuActions({ service, window: () => win, tellUi, onSaved: (count) => (savedCount = count) });
  const state = {
    proxyRunning: status.proxy.running,
    recentSessions,
    isMac: process.platform === 'darwin',
    appName: app.name,
    devTools: !app.isPackaged,
  };
  Menu.setApplicationMenu(Menu.buildFromTemplate(buildMenuTemplate(state, actions)));
}

function createWindow(): BrowserWindow {
  const w = new BrowserWindow(windowOptions({ preload: PRELOAD, icon: fs.existsSync(ICON) ? ICON : undefined, devTools: !app.isPackaged }));
  w.once('ready-to-show', () => w.show());
  w.on('closed', () => {
    if (win === w) win = undefined;
    // Main stays subscribed to the core after the window is gone (macOS keeps the app): nobody
    // is left to resume a paused exchange, so each continues unchanged instead of hanging its client.
    service?.releaseBreakpoints();
  });
  void w.loadURL(APP_URL);
  return w;
}

async function start(): Promise<void> {
  lockDownSession();
  const userData = app.getPath('userData');
  const dataDir = defaultDataDir(); // shared with the CLI: one CA to trust, one session store
  const settings = loadSettings(userData);
  // NETLENS_PROXY_PORT (e.g. 0 in tests) overrides the saved port for this launch only.
  const envPort = process.env.NETLENS_PROXY_PORT !== undefined ? Number(process.env.NETLENS_PROXY_PORT) : undefined;
  const portOverride = envPort !== undefined && Number.isInteger(envPort) && envPort >= 0 && envPort <= 65535 ? envPort : undefined;

  service = new CoreService({
    dataDir,
    version: app.getVersion(),
    proxy: { ...settings.proxy, ...(portOverride !== undefined ? { port: portOverride } : {}) },
    ...(await coreBackends(dataDir)),
  });
  unregisterApi = registerApi(ipcMain, service);
  // The core already batches exchange rows (EXCHANGE_BATCH_MS); forward events as they come.
  service.subscribe((event: NetlensEvent) => {
    send(EVENT_CHANNEL, event);
    if (event.type === 'proxy-status') {
      // Remember the user's choices; a port forced by NETLENS_PROXY_PORT is not one of them.
      saveSettings(userData, {
        proxy: portOverride === undefined ? event.status.config : { ...event.status.config, port: settings.proxy.port },
      });
      void refreshMenu().catch(() => undefined);
    } else if (event.type === 'sessions-changed') {
      void refreshMenu().catch(() => undefined);
    }
  });

  win = createWindow();
  await refreshMenu();
  try {
    await service.startProxy();
  } catch {
    // The status (with the error) reaches the UI, which offers another port.
  }
}

app.on('activate', () => {
  if (service && !win) win = createWindow();
});

app.on('window-all-closed', () => {
  if (process.platform !== 'darwin') app.quit();
});

/** Keeps what was recorded since the last save, then stops everything the core started. */
async function stopCore(): Promise<void> {
  const s = service;
  if (!s) return;
  try {
    const { exchangeCount } = await s.getStatus();
    if (exchangeCount > 0 && exchangeCount !== savedCount) await s.saveSession({ name: `${saveCaptureName()} (at quit)` });
  } catch (err) {
    console.error(`Netlens: the capture could not be saved at quit: ${(err as Error)?.message ?? err}`);
  }
  await s.close();
  unregisterApi?.();
}

app.on('before-quit', (event) => {
  if (shutdownDone) return;
  event.preventDefault();
  shutdown ??= stopCore()
    .catch((err) => console.error(`Netlens: shutdown: ${(err as Error)?.message ?? err}`))
    .finally(() => {
      shutdownDone = true;
      app.quit();
    });
});

// `npm start` in a terminal: Ctrl+C quits the same clean way as the menu.
for (const sig of ['SIGINT', 'SIGTERM'] as const) process.on(sig, () => app.quit());
