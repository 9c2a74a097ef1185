/**
 * A stand-in for the 'electron' module, enough to run the real bundled main
 * process (dist/electron/main.mjs) in plain Node where no Electron binary
 * exists. It records what main registers (IPC handlers, the app protocol,
 * windows, menus, sent events) so main.smoke.test.ts can drive it.
 */
import { EventEmitter } from 'node:events';

export const recorded = {
  handlers: new Map(),
  protocolHandler: undefined,
  schemes: undefined,
  sent: [],
  menus: [],
  windows: [],
  opened: [],
  quitted: false,
  exitCode: undefined,
  permissionCheck: undefined,
};

let fireReady;
const ready = new Promise((resolve) => (fireReady = resolve));
export const start = () => fireReady();

const emitter = new EventEmitter();
export const app = Object.assign(emitter, {
  name: 'Netlens',
  // STUB_PACKAGED=1 runs main as a packaged build would (no DevTools).
  isPackaged: process.env.STUB_PACKAGED === '1',
  getAppPath: () => process.env.STUB_APP_PATH,
  getPath: () => recorded.userData ?? process.env.STUB_USER_DATA,
  setPath: (_name, dir) => (recorded.userData = dir),
  getVersion: () => '0.1.0-stub',
  requestSingleInstanceLock: () => true,
  whenReady: () => ready,
  addRecentDocument: () => undefined,
  quit() {
    const event = {
      defaultPrevented: false,
      preventDefault() {
        this.defaultPrevented = true;
      },
    };
    emitter.emit('before-quit', event);
    if (!event.defaultPrevented) recorded.quitted = true;
  },
  exit(code) {
    recorded.exitCode = code;
  },
});

export const ipcMain = {
  handle: (channel, fn) => recorded.handlers.set(channel, fn),
  removeHandler: (channel) => recorded.handlers.delete(channel),
};

export const protocol = {
  registerSchemesAsPrivileged: (schemes) => (recorded.schemes = schemes),
  handle: (_scheme, fn) => (recorded.protocolHandler = fn),
};

export const session = {
  defaultSession: { setPermissionRequestHandler: () => undefined, setPermissionCheckHandler: (fn) => (recorded.permissionCheck = fn) },
};

export class BrowserWindow extends EventEmitter {
  constructor(options) {
    super();
    this.options = options;
    this.webContents = { send: (channel, payload) => recorded.sent.push([channel, payload]) };
    recorded.windows.push(this);
  }
  loadURL(url) {
    this.url = url;
    return Promise.resolve();
  }
  show() {}
  focus() {}
  restore() {}
  isMinimized() {
    return false;
  }
  isDestroyed() {
    return false;
  }
}

export const Menu = { buildFromTemplate: (template) => template, setApplicationMenu: (menu) => recorded.menus.push(menu) };
export const shell = { openExternal: async (url) => recorded.opened.push(url), showItemInFolder: () => undefined };
export const dialog = {
  showMessageBox: async () => ({ response: 0 }),
  showOpenDialog: async () => ({ canceled: true, filePaths: [] }),
  showSaveDialog: async () => ({ canceled: true }),
};

export default { app, ipcMain, protocol, session, BrowserWindow, Menu, shell, dialog };
