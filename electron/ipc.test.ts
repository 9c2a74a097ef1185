import { describe, expect, it, vi } from 'vitest';
import { COMMAND_NAMES, type NetlensApi } from '../proxy/src/api/contract.js';
import { commandChannel, COMMAND_CHANNEL_PREFIX } from './channels.js';
import { isTrustedSender, registerApi, type IpcMainLike } from './ipc.js';

type Handler = (event: unknown, ...args: unknown[]) => unknown;

function fakeIpcMain() {
  const handlers = new Map<string, Handler>();
  const ipc: IpcMainLike = {
    handle: (channel, fn) => {
      if (handlers.has(channel)) throw new Error(`second handler for ${channel}`);
      handlers.set(channel, fn as Handler);
    },
    removeHandler: (channel) => handlers.delete(channel),
  };
  return { ipc, handlers };
}

/** A service whose every command echoes its name and argument. */
function echoService(): NetlensApi {
  const s: Record<string, unknown> = { subscribe: () => () => undefined };
  for (const name of COMMAND_NAMES) s[name] = vi.fn(async (args: unknown) => ({ name, args }));
  return s as unknown as NetlensApi;
}

const ours = { senderFrame: { url: 'netlens://app/index.html', parent: null } };

describe('registerApi', () => {
  it('registers exactly one handler per contract command and nothing else', () => {
    const { ipc, handlers } = fakeIpcMain();
    registerApi(ipc, echoService());
    expect([...handlers.keys()].sort()).toEqual(COMMAND_NAMES.map(commandChannel).sort());
    for (const channel of handlers.keys()) expect(channel.startsWith(COMMAND_CHANNEL_PREFIX)).toBe(true);
  });

  it('answers { ok, result } and passes the argument through', async () => {
    const { ipc, handlers } = fakeIpcMain();
    const service = echoService();
    registerApi(ipc, service);
    const reply = await handlers.get(commandChannel('getExchange'))!(ours, { id: 'x1' });
    expect(reply).toEqual({ ok: true, result: { name: 'getExchange', args: { id: 'x1' } } });
  });

  it('turns a thrown NetlensError into { ok: false, error: { code, message } }', async () => {
    const { ipc, handlers } = fakeIpcMain();
    const service = echoService();
    (service as unknown as Record<string, unknown>).openSession = async () => {
      throw Object.assign(new Error('No session "s9".'), { code: 'NL_NOT_FOUND' });
    };
    registerApi(ipc, service);
    expect(await handlers.get(commandChannel('openSession'))!(ours, { id: 's9' })).toEqual({
      ok: false,
      error: { code: 'NL_NOT_FOUND', message: 'No session "s9".' },
    });
  });

  it('maps errors without an NL_ code to NL_INTERNAL', async () => {
    const { ipc, handlers } = fakeIpcMain();
    const service = echoService();
    (service as unknown as Record<string, unknown>).listSessions = async () => {
      throw Object.assign(new Error('disk gone'), { code: 'EIO' });
    };
    registerApi(ipc, service);
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    expect(await handlers.get(commandChannel('listSessions'))!(ours)).toEqual({
      ok: false,
      error: { code: 'NL_INTERNAL', message: 'disk gone' },
    });
    warn.mockRestore();
  });

  it('refuses senders that are not our window without calling the service', async () => {
    const { ipc, handlers } = fakeIpcMain();
    const service = echoService();
    registerApi(ipc, service);
    const reply = await handlers.get(commandChannel('clearExchanges'))!({ senderFrame: { url: 'https://evil.example/', parent: null } });
    expect(reply).toMatchObject({ ok: false, error: { code: 'NL_API_FORBIDDEN' } });
    expect(service.clearExchanges).not.toHaveBeenCalled();
  });

  it('returns a function that removes every handler', () => {
    const { ipc, handlers } = fakeIpcMain();
    const unregister = registerApi(ipc, echoService());
    unregister();
    expect(handlers.size).toBe(0);
  });
});

describe('isTrustedSender', () => {
  it('accepts the top frame of our app origin', () => {
    expect(isTrustedSender(ours)).toBe(true);
    expect(isTrustedSender({ senderFrame: { url: 'netlens://app/', parent: null } })).toBe(true);
    expect(isTrustedSender({ senderFrame: { url: 'netlens://app/index.html?x=1#lab', parent: null } })).toBe(true);
  });

  it.each([
    ['remote https page', 'https://example.com/'],
    ['local http server', 'http://127.0.0.1:5173/'],
    ['file URL', 'file:///work/main/dist/renderer/index.html'],
    ['our scheme, other host', 'netlens://evil/index.html'],
    ['our scheme with credentials', 'netlens://user@app/index.html'],
    ['look-alike host', 'netlens://app.evil/index.html'],
    ['about:blank', 'about:blank'],
    ['data URL', 'data:text/html,<h1>x</h1>'],
    ['empty', ''],
  ])('rejects %s', (_label, url) => {
    expect(isTrustedSender({ senderFrame: { url, parent: null } })).toBe(false);
  });

  it('rejects subframes, even of our origin, and missing frames', () => {
    expect(isTrustedSender({ senderFrame: { url: 'netlens://app/index.html', parent: {} } })).toBe(false);
    expect(isTrustedSender({ senderFrame: null })).toBe(false);
    expect(isTrustedSender({})).toBe(false);
  });
});
