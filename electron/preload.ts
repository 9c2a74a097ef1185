/**
 * Sandboxed preload (bundled to CommonJS, see scripts/build-electron.mjs).
 * Exposes `window.netlens` and nothing else: the page never sees
 * `ipcRenderer`, `require` or `process`.
 */
import { contextBridge, ipcRenderer } from 'electron';
import { buildBridge } from './bridge.js';
import { MENU_CHANNEL } from './channels.js';

contextBridge.exposeInMainWorld('netlens', buildBridge(ipcRenderer));

// Menu actions reach the page as plain window messages (structured-cloned data, no function crosses).
// The target is this same window, so '*' names no other recipient.
ipcRenderer.on(MENU_CHANNEL, (_event, message: unknown) => window.postMessage({ netlensMenu: message }, '*'));
