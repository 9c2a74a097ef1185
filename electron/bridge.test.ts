import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { COMMAND_NAMES, type NetlensEvent } from '../proxy/src/api/contract.js';
import { buildBridge, type IpcRendererLike } from './bridge.js';
import { commandChannel, EVENT_CHANNEL } from './channels.js';

type Listener = (event: unknown, ...args: unknown[]) => void;

function fakeIpcRenderer(reply: (channel: string, args: unknown) => unknown) {
  const listeners = new Map<string, Set<Listener>>();
  const calls: Array<[string, unknown]> = [];
  const ipc: IpcRendererLike = {
    invoke: async (channel, args) => {
      calls.push([channel, args]);
      return reply(channel, args);
    },
    on: (channel, l) => listeners.set(channel, (listeners.get(channel) ?? new Set()).add(l)),
    removeListener: (channel, l) => listeners.get(channel)?.delete(l),
  };
  const emit = (event: NetlensEvent) => listeners.get(EVENT_CHANNEL)?.forEach((l) => l({}, event));
  return { ipc, calls, listeners, emit };
}

describe('preload bridge (window.netlens)', () => {
  it('exposes exactly the contract commands plus subscribe, all functions, frozen', () => {
    const bridge = buildBridge(fakeIpcRenderer(() => ({ ok: true, result: null })).ipc) as unknown as Record<string, unknown>;
    expect(Object.keys(bridge).sort()).toEqual([...COMMAND_NAMES, 'subscribe'].sort());
    for (const key of Object.keys(bridge)) expect(typeof bridge[key]).toBe('function');
    expect(Object.isFrozen(bridge)).toBe(true);
  });

  it('invokes the command channel with the argument and resolves with the result', async () => {
    const f = fakeIpcRenderer((channel, args) => ({ ok: true, result: { channel, args } }));
    const bridge = buildBridge(f.ipc);
    await expect(bridge.getExchangeBody({ id: 'a', side: 'response' })).resolves.toEqual({
      channel: commandChannel('getExchangeBody'),
      args: { id: 'a', side: 'response' },
    });
    await expect(bridge.getStatus()).resolves.toEqual({ channel: commandChannel('getStatus'), args: undefined });
  });

  it('rejects with a plain { code, message } object (what renderer/src/api.ts reads)', async () => {
    const bridge = buildBridge(fakeIpcRenderer(() => ({ ok: false, error: { code: 'NL_NOT_FOUND', message: 'gone' } })).ipc);
    const err = await bridge.openSession({ id: 'x' }).catch((e: unknown) => e);
    expect(err).toEqual({ code: 'NL_NOT_FOUND', message: 'gone' });
    expect(err).not.toBeInstanceOf(Error);
  });

  it('reports an unreachable core and malformed replies with stable codes', async () => {
    const down = buildBridge({ ...fakeIpcRenderer(() => null).ipc, invoke: async () => Promise.reject(new Error('no handler')) });
    await expect(down.listSessions()).rejects.toMatchObject({ code: 'NL_API_UNREACHABLE' });
    const odd = buildBridge(fakeIpcRenderer(() => 'nonsense').ipc);
    await expect(odd.listSessions()).rejects.toMatchObject({ code: 'NL_API_BAD_RESPONSE' });
  });

  it('subscribe fans events out and detaches its one IPC listener when the last subscriber leaves', () => {
    const f = fakeIpcRenderer(() => ({ ok: true, result: null }));
    const bridge = buildBridge(f.ipc);
    const a: NetlensEvent[] = [];
    const b: NetlensEvent[] = [];
    const offA = bridge.subscribe((e) => a.push(e));
    const offB = bridge.subscribe((e) => b.push(e));
    expect(f.listeners.get(EVENT_CHANNEL)?.size).toBe(1);
    f.emit({ type: 'exchanges-cleared' });
    offA();
    f.emit({ type: 'sessions-changed' });
    expect(a.map((e) => e.type)).toEqual(['exchanges-cleared']);
    expect(b.map((e) => e.type)).toEqual(['exchanges-cleared', 'sessions-changed']);
    offB();
    expect(f.listeners.get(EVENT_CHANNEL)?.size).toBe(0);
  });

  it('preload.ts exposes only `netlens`, and only the bridge', () => {
    const src = fs.readFileSync(new URL('./preload.ts', import.meta.url), 'utf8');
    const exposed = [...src.matchAll(/exposeInMainWorld\(\s*'([^']+)'\s*,\s*([^)]+\))/g)].map((m) => [m[1], m[2]]);
    expect(exposed).toEqual([['netlens', 'buildBridge(ipcRenderer)']]);
    expect(src).not.toMatch(/exposeInIsolatedWorld|webFrame|process\.|require\(/);
  });
});
