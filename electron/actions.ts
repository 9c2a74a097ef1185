/**
 * What the menu items do. Thin: each one is a dialog around one core-service
 * command, or a message asking the UI to show something.
 */
import fs from 'node:fs';
import path from 'node:path';
import { app, dialog, shell, type BrowserWindow } from 'electron';
import type { CoreService } from '../proxy/src/api/core-service.js';
import type { MenuMessage } from './channels.js';
import { trustCaMessage, type MenuActions } from './menu.js';

/** HAR files larger than this are refused (a HAR is parsed in memory). */
const MAX_HAR_BYTES = 256 * 1024 * 1024;

export interface ActionContext {
  service: CoreService;
  window(): BrowserWindow | undefined;
  /** Sends a menu message to the page (see channels.ts MENU_CHANNEL). */
  tellUi(message: MenuMessage): void;
  /** Called with the number of exchanges the saved capture held (quit then has nothing new to keep). */
  onSaved(exchangeCount: number): void;
}

function fail(ctx: ActionContext, title: string, err: unknown): void {
  const e = err as { message?: string; code?: string };
  void dialog.showMessageBox(ctx.window()!, {
    type: 'error',
    message: title,
    detail: `${e?.message ?? String(err)}${e?.code ? ` [${e.code}]` : ''}`,
  });
}

/** Runs an action; any failure becomes an error dialog instead of an unhandled rejection in main. */
function guarded(ctx: ActionContext, title: string, fn: () => Promise<void>): () => void {
  return () => void fn().catch((err) => fail(ctx, title, err));
}

export function saveCaptureName(date = new Date()): string {
  return `Capture ${date.toISOString().slice(0, 19).replace('T', ' ')}`;
}

export function menuActions(ctx: ActionContext): MenuActions {
  const { service } = ctx;
  const parent = () => ctx.window()!;
  return {
    openHar: guarded(ctx, 'The HAR file could not be opened', async () => {
      const pick = await dialog.showOpenDialog(parent(), {
        title: 'Open HAR',
        properties: ['openFile'],
        filters: [{ name: 'HAR files', extensions: ['har', 'json'] }],
      });
      const file = pick.filePaths[0];
      if (pick.canceled || !file) return;
      const { size } = await fs.promises.stat(file);
      if (size > MAX_HAR_BYTES)
        throw new Error(
          `${path.basename(file)} is ${Math.round(size / 1024 / 1024)} MiB; the limit is ${MAX_HAR_BYTES / 1024 / 1024} MiB.`,
        );
      const info = await service.importHar({ fileName: path.basename(file), text: await fs.promises.readFile(file, 'utf8') });
      app.addRecentDocument(file);
      ctx.tellUi({ action: 'open-session', id: info.id });
    }),
    saveSession: guarded(ctx, 'The session could not be saved', async () => {
      const { exchangeCount } = await service.getStatus();
      const info = await service.saveSession({ name: saveCaptureName() });
      ctx.onSaved(exchangeCount);
      const count = info.entryCount === 1 ? '1 request' : `${info.entryCount} requests`;
      await dialog.showMessageBox(parent(), {
        type: 'info',
        message: `Saved "${info.name}"`,
        detail: `${count}. It is listed under Sessions and File → Recent sessions.`,
      });
    }),
    exportHar: guarded(ctx, 'The HAR could not be exported', async () => {
      const har = await service.exportHar({});
      const pick = await dialog.showSaveDialog(parent(), {
        title: 'Export HAR',
        defaultPath: har.fileName,
        filters: [{ name: 'HAR files', extensions: ['har'] }],
      });
      if (pick.canceled || !pick.filePath) return;
      await fs.promises.writeFile(pick.filePath, har.text);
    }),
    openRecent: (id) => ctx.tellUi({ action: 'open-session', id }),
    toggleProxy: guarded(ctx, 'The proxy could not be started or stopped', async () => {
      const { proxy } = await service.getStatus();
      await (proxy.running ? service.stopProxy() : service.startProxy());
    }),
    launchBrowser: guarded(ctx, 'The browser could not be launched', async () => {
      await service.launchBrowser({});
    }),
    newLabRun: () => ctx.tellUi({ action: 'new-lab-run' }),
    about: guarded(ctx, 'About', async () => {
      const status = await service.getStatus();
      await dialog.showMessageBox(parent(), {
        type: 'info',
        message: `Netlens ${status.version}`,
        detail: [
          'Network inspector and network-performance lab.',
          '',
          `Data directory: ${status.dataDir}`,
          `Electron ${process.versions.electron} · Chromium ${process.versions.chrome} · Node ${process.versions.node}`,
        ].join('\n'),
      });
    }),
    trustCa: guarded(ctx, 'The CA could not be shown', async () => {
      const { proxy } = await service.getStatus();
      const text = trustCaMessage(proxy.ca, proxy.trustHelp);
      const buttons = proxy.ca ? ['Show certificate file', 'Close'] : ['Close'];
      const { response } = await dialog.showMessageBox(parent(), {
        type: 'info',
        message: text.message,
        detail: text.detail,
        buttons,
        defaultId: buttons.length - 1,
      });
      if (proxy.ca && response === 0) shell.showItemInFolder(proxy.ca.certPath);
    }),
  };
}
