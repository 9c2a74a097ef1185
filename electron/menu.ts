/**
 * The application menu as a pure template builder: state and actions in,
 * Electron's MenuItemConstructorOptions out. main.ts owns the actions (they
 * call the core service or show dialogs); tests assert the template.
 */
import type { MenuItemConstructorOptions } from 'electron';

export interface MenuState {
  proxyRunning: boolean;
  /** Most recent first; at most RECENT_LIMIT are shown. */
  recentSessions: Array<{ id: string; name: string }>;
  /** macOS puts About/Quit in the app menu. */
  isMac: boolean;
  appName: string;
  /** Show View → Toggle Developer Tools: only when not packaged (see windowOptions). */
  devTools: boolean;
}

export interface MenuActions {
  openHar(): void;
  saveSession(): void;
  exportHar(): void;
  openRecent(id: string): void;
  toggleProxy(): void;
  launchBrowser(): void;
  newLabRun(): void;
  about(): void;
  trustCa(): void;
}

export const RECENT_LIMIT = 10;

export function buildMenuTemplate(state: MenuState, actions: MenuActions): MenuItemConstructorOptions[] {
  const recent: MenuItemConstructorOptions[] = state.recentSessions.length
    ? state.recentSessions.slice(0, RECENT_LIMIT).map((s) => ({ label: s.name, click: () => actions.openRecent(s.id) }))
    : [{ label: 'No saved sessions', enabled: false }];

  const file: MenuItemConstructorOptions = {
    label: 'File',
    submenu: [
      { label: 'Open HAR…', accelerator: 'CmdOrCtrl+O', click: () => actions.openHar() },
      { label: 'Save session', accelerator: 'CmdOrCtrl+S', click: () => actions.saveSession() },
      { label: 'Export HAR…', accelerator: 'CmdOrCtrl+Shift+E', click: () => actions.exportHar() },
      { type: 'separator' },
      { label: 'Recent sessions', submenu: recent },
      ...(state.isMac ? [] : ([{ type: 'separator' }, { role: 'quit' }] as MenuItemConstructorOptions[])),
    ],
  };

  const proxy: MenuItemConstructorOptions = {
    label: 'Proxy',
    submenu: [
      { label: state.proxyRunning ? 'Stop proxy' : 'Start proxy', accelerator: 'CmdOrCtrl+P', click: () => actions.toggleProxy() },
      { label: 'Launch browser', accelerator: 'CmdOrCtrl+B', enabled: state.proxyRunning, click: () => actions.launchBrowser() },
    ],
  };

  const lab: MenuItemConstructorOptions = {
    label: 'Lab',
    submenu: [{ label: 'New run…', accelerator: 'CmdOrCtrl+L', click: () => actions.newLabRun() }],
  };

  const about: MenuItemConstructorOptions = { label: `About ${state.appName}`, click: () => actions.about() };
  const help: MenuItemConstructorOptions = {
    role: 'help',
    label: 'Help',
    submenu: [...(state.isMac ? [] : [about]), { label: 'Trust the CA…', click: () => actions.trustCa() }],
  };

  const edit: MenuItemConstructorOptions = { role: 'editMenu' };
  const view: MenuItemConstructorOptions = {
    label: 'View',
    submenu: [
      { role: 'reload' },
      ...(state.devTools ? [{ role: 'toggleDevTools' } as const] : []),
      { type: 'separator' },
      { role: 'resetZoom' },
      { role: 'zoomIn' },
      { role: 'zoomOut' },
      { type: 'separator' },
      { role: 'togglefullscreen' },
    ],
  };

  const macApp: MenuItemConstructorOptions = {
    label: state.appName,
    submenu: [
      about,
      { type: 'separator' },
      { role: 'hide' },
      { role: 'hideOthers' },
      { role: 'unhide' },
      { type: 'separator' },
      { role: 'quit' },
    ],
  };

  return [...(state.isMac ? [macApp] : []), file, edit, view, proxy, lab, help];
}

/** The text of Help → Trust the CA: where the certificate is and what to do with it. */
export function trustCaMessage(
  ca: { certPath: string; fingerprint: string } | undefined,
  trustHelp: string | undefined,
): { message: string; detail: string } {
  if (!ca)
    return {
      message: 'The local CA is not available yet.',
      detail: 'Start the proxy once: Netlens creates its CA in the data directory on first start.',
    };
  return {
    message: 'Trust the Netlens CA to inspect HTTPS',
    detail: [
      `Certificate: ${ca.certPath}`,
      `SHA-256: ${ca.fingerprint}`,
      '',
      trustHelp ?? 'Import the certificate into your browser or system trust store as a certificate authority.',
    ].join('\n'),
  };
}
