/**
 * Issue 13 item 15: packaged builds have no DevTools — off in webPreferences, no
 * View → Toggle Developer Tools, shortcuts swallowed, DevTools that open anyway
 * closed. The pure parts; main.smoke.test.ts runs the bundled main process
 * with app.isPackaged true.
 */
import { describe, expect, it } from 'vitest';
import { isDevToolsShortcut, lockDownDevTools, windowOptions, type KeyInput } from './window.js';

describe('DevTools switch', () => {
  it('webPreferences.devTools follows the flag and is off by default', () => {
    expect(windowOptions({ preload: '/p.cjs' }).webPreferences?.devTools).toBe(false);
    expect(windowOptions({ preload: '/p.cjs', devTools: false }).webPreferences?.devTools).toBe(false);
    expect(windowOptions({ preload: '/p.cjs', devTools: true }).webPreferences?.devTools).toBe(true);
  });

  it('recognises the DevTools shortcuts and nothing else', () => {
    const down = (key: string, mods: Partial<KeyInput> = {}): KeyInput => ({ type: 'keyDown', key, ...mods });
    const ctrlShift = { control: true, shift: true };
    for (const k of [down('F12'), down('I', ctrlShift), down('j', ctrlShift), down('C', ctrlShift), down('i', { meta: true, alt: true })]) {
      expect(isDevToolsShortcut(k), JSON.stringify(k)).toBe(true);
    }
    const others = [
      down('i', { control: true }),
      down('c', { control: true }),
      down('i'),
      down('F5'),
      down('r', { control: true, shift: true }),
    ];
    for (const k of [...others, { type: 'keyUp', key: 'F12' }, down('i', { meta: true })]) {
      expect(isDevToolsShortcut(k), JSON.stringify(k)).toBe(false);
    }
  });

  it('lockDownDevTools swallows the shortcuts and closes DevTools that open', () => {
    const listeners = new Map<string, (...a: any[]) => void>();
    let closed = 0;
    lockDownDevTools({ on: (e: string, l: (...a: any[]) => void) => listeners.set(e, l), closeDevTools: () => closed++ });
    const press = (input: KeyInput) => {
      let prevented = false;
      listeners.get('before-input-event')!({ preventDefault: () => (prevented = true) }, input);
      return prevented;
    };
    expect(press({ type: 'keyDown', key: 'F12' })).toBe(true);
    expect(press({ type: 'keyDown', key: 'i', control: true, shift: true })).toBe(true);
    expect(press({ type: 'keyDown', key: 'x', control: true })).toBe(false);
    listeners.get('devtools-opened')!();
    expect(closed).toBe(1);
  });
});
