import { describe, expect, it, vi, type Mock } from 'vitest';
import type { MenuItemConstructorOptions } from 'electron';
import { buildMenuTemplate, RECENT_LIMIT, trustCaMessage, type MenuActions, type MenuState } from './menu.js';

function actions(): Record<keyof MenuActions, Mock> {
  const names = ['openHar', 'saveSession', 'exportHar', 'openRecent', 'toggleProxy', 'launchBrowser', 'newLabRun', 'about', 'trustCa'];
  return Object.fromEntries(names.map((n) => [n, vi.fn()])) as Record<keyof MenuActions, Mock>;
}

const base: MenuState = {
  proxyRunning: true,
  recentSessions: [
    { id: 's2', name: 'Checkout flow' },
    { id: 's1', name: 'Login' },
  ],
  isMac: false,
  appName: 'Netlens',
  devTools: true,
};

function menu(template: MenuItemConstructorOptions[], label: string): MenuItemConstructorOptions[] {
  const m = template.find((i) => i.label === label);
  if (!m) throw new Error(`no menu ${label}`);
  return m.submenu as MenuItemConstructorOptions[];
}
const item = (items: MenuItemConstructorOptions[], label: string) => items.find((i) => i.label === label)!;
const click = (i: MenuItemConstructorOptions) => (i.click as () => void)();

describe('buildMenuTemplate', () => {
  it('has the menus users expect, in order', () => {
    expect(buildMenuTemplate(base, actions()).map((m) => m.label ?? m.role)).toEqual(['File', 'editMenu', 'View', 'Proxy', 'Lab', 'Help']);
    expect(buildMenuTemplate({ ...base, isMac: true }, actions())[0].label).toBe('Netlens');
  });

  it('View offers Toggle Developer Tools only when DevTools are on (not in packaged builds)', () => {
    const roles = (devTools: boolean) => menu(buildMenuTemplate({ ...base, devTools }, actions()), 'View').map((i) => i.role);
    expect(roles(true)).toContain('toggleDevTools');
    expect(roles(false)).not.toContain('toggleDevTools');
    expect(roles(false)).toContain('reload');
  });

  it('File: Open HAR…, Save session, Export HAR…, Recent sessions, Quit', () => {
    const a = actions();
    const file = menu(buildMenuTemplate(base, a), 'File');
    expect(file.filter((i) => i.label).map((i) => i.label)).toEqual(['Open HAR…', 'Save session', 'Export HAR…', 'Recent sessions']);
    expect(file.some((i) => i.role === 'quit')).toBe(true);
    expect(item(file, 'Open HAR…').accelerator).toBe('CmdOrCtrl+O');
    click(item(file, 'Open HAR…'));
    click(item(file, 'Save session'));
    click(item(file, 'Export HAR…'));
    expect([a.openHar, a.saveSession, a.exportHar].map((f) => f.mock.calls.length)).toEqual([1, 1, 1]);
    const recent = item(file, 'Recent sessions').submenu as MenuItemConstructorOptions[];
    expect(recent.map((i) => i.label)).toEqual(['Checkout flow', 'Login']);
    click(recent[1]);
    expect(a.openRecent).toHaveBeenCalledWith('s1');
  });

  it('Recent sessions: placeholder when empty, capped when long', () => {
    const empty = item(menu(buildMenuTemplate({ ...base, recentSessions: [] }, actions()), 'File'), 'Recent sessions')
      .submenu as MenuItemConstructorOptions[];
    expect(empty).toEqual([{ label: 'No saved sessions', enabled: false }]);
    const many = Array.from({ length: 25 }, (_, i) => ({ id: `s${i}`, name: `S${i}` }));
    const capped = item(menu(buildMenuTemplate({ ...base, recentSessions: many }, actions()), 'File'), 'Recent sessions')
      .submenu as MenuItemConstructorOptions[];
    expect(capped).toHaveLength(RECENT_LIMIT);
  });

  it('Proxy: Stop while running, Start while stopped; Launch browser needs the proxy', () => {
    const a = actions();
    const running = menu(buildMenuTemplate(base, a), 'Proxy');
    expect(running.map((i) => i.label)).toEqual(['Stop proxy', 'Launch browser']);
    expect(item(running, 'Launch browser').enabled).toBe(true);
    click(item(running, 'Stop proxy'));
    click(item(running, 'Launch browser'));
    expect(a.toggleProxy).toHaveBeenCalledTimes(1);
    expect(a.launchBrowser).toHaveBeenCalledTimes(1);
    const stopped = menu(buildMenuTemplate({ ...base, proxyRunning: false }, a), 'Proxy');
    expect(stopped[0].label).toBe('Start proxy');
    expect(item(stopped, 'Launch browser').enabled).toBe(false);
  });

  it('Lab → New run…; Help → About, Trust the CA…', () => {
    const a = actions();
    const t = buildMenuTemplate(base, a);
    click(item(menu(t, 'Lab'), 'New run…'));
    expect(a.newLabRun).toHaveBeenCalled();
    const help = menu(t, 'Help');
    expect(help.map((i) => i.label)).toEqual(['About Netlens', 'Trust the CA…']);
    click(item(help, 'About Netlens'));
    click(item(help, 'Trust the CA…'));
    expect(a.about).toHaveBeenCalled();
    expect(a.trustCa).toHaveBeenCalled();
  });

  it('macOS: About and Quit live in the app menu', () => {
    const t = buildMenuTemplate({ ...base, isMac: true }, actions());
    const appMenu = t[0].submenu as MenuItemConstructorOptions[];
    expect(appMenu[0].label).toBe('About Netlens');
    expect(appMenu.some((i) => i.role === 'quit')).toBe(true);
    expect(menu(t, 'File').some((i) => i.role === 'quit')).toBe(false);
    expect(menu(t, 'Help').map((i) => i.label)).toEqual(['Trust the CA…']);
  });
});

describe('trustCaMessage', () => {
  it('shows the certificate path, fingerprint and the instructions', () => {
    const m = trustCaMessage(
      { certPath: '/home/u/.local/share/netlens/ca/netlens-ca.pem', fingerprint: 'AB:CD' },
      'Chrome: Settings → Certificates → Authorities → Import',
    );
    expect(m.message).toMatch(/Trust the Netlens CA/);
    expect(m.detail).toContain('Certificate: /home/u/.local/share/netlens/ca/netlens-ca.pem');
    expect(m.detail).toContain('SHA-256: AB:CD');
    expect(m.detail).toContain('Authorities → Import');
  });

  it('says how to get a CA when there is none yet', () => {
    expect(trustCaMessage(undefined, undefined).detail).toMatch(/Start the proxy/);
  });
});
