import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { COMMAND_NAMES, type NetlensApi } from '../../src/api/contract.js';
import { CoreService } from '../../src/api/core-service.js';
import { invoke, isCommandName } from '../../src/api/invoke.js';
import { ErrorCodes, NetlensError } from '../../src/errors.js';
import { fakeProxy } from './helpers.js';
import { fakeBackends } from './fake-backends.js';

/** A service whose commands do what `behave` says. */
function service(behave: (name: string, args: unknown) => unknown): NetlensApi {
  const s: Record<string, unknown> = { subscribe: () => () => undefined };
  for (const name of COMMAND_NAMES) s[name] = vi.fn(async (args: unknown) => behave(name, args));
  return s as unknown as NetlensApi;
}

describe('invoke', () => {
  const warn = vi.fn();
  const call = (s: NetlensApi, name: unknown, args: unknown) => invoke(s, name, args, { where: 'test', warn });
  beforeEach(() => warn.mockReset());

  it('calls the command with its argument and answers { ok, result }', async () => {
    const s = service((name, args) => ({ name, args }));
    expect(await call(s, 'getExchange', { id: 'x1' })).toEqual({ ok: true, result: { name: 'getExchange', args: { id: 'x1' } } });
    expect(await call(s, 'listExchanges', undefined)).toEqual({ ok: true, result: { name: 'listExchanges' } });
  });

  it('answers null for a command that returns nothing', async () => {
    expect(
      await call(
        service(() => undefined),
        'stopProxy',
        undefined,
      ),
    ).toEqual({ ok: true, result: null });
  });

  it('refuses an unknown command, and names that are not commands, without calling anything', async () => {
    const s = service(() => 'called');
    for (const name of ['rmRfEverything', 'subscribe', 'constructor', '__proto__', 'toString', 42]) {
      const reply = await call(s, name, {});
      expect(reply, String(name)).toMatchObject({ ok: false, error: { code: ErrorCodes.API_BAD_REQUEST } });
    }
    expect((await call(s, 'x'.repeat(10_000), {})).ok).toBe(false);
    expect(isCommandName('getStatus')).toBe(true);
    expect(isCommandName('subscribe')).toBe(false);
    expect(warn).not.toHaveBeenCalled();
  });

  it('refuses an argument that is not an object with a bad-request code', async () => {
    const s = service(() => 'called');
    for (const args of ['x1', 5, true, ['x1']]) {
      const reply = await call(s, 'getExchange', args);
      const error = { code: ErrorCodes.API_BAD_REQUEST, message: 'getExchange: the argument must be an object' };
      expect(reply).toEqual({ ok: false, error });
    }
    expect(s.getExchange).not.toHaveBeenCalled();
  });

  it('keeps the code and message of a thrown NetlensError, and warns of nothing', async () => {
    const s = service(() => {
      throw new NetlensError(ErrorCodes.NOT_FOUND, 'No session "s9".');
    });
    expect(await call(s, 'openSession', { id: 's9' })).toEqual({
      ok: false,
      error: { code: 'NL_NOT_FOUND', message: 'No session "s9".' },
    });
    expect(warn).not.toHaveBeenCalled();
  });

  it('answers NL_INTERNAL for a plain Error, with its message but no stack; the stack goes to the warning', async () => {
    const s = service(() => {
      throw new Error('disk gone');
    });
    const reply = await call(s, 'listSessions', undefined);
    expect(reply).toEqual({ ok: false, error: { code: 'NL_INTERNAL', message: 'disk gone' } });
    expect(JSON.stringify(reply)).not.toContain('invoke.test');
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn.mock.calls[0]![0]).toMatch(/^test: listSessions failed: Error: disk gone\n\s+at /);
  });

  it('answers NL_INTERNAL for an unregistered NL_ code and for a thrown non-Error', async () => {
    const coded = service(() => {
      throw Object.assign(new Error('odd'), { code: 'NL_NOT_A_CODE' });
    });
    expect(await call(coded, 'listSessions', undefined)).toEqual({ ok: false, error: { code: 'NL_INTERNAL', message: 'odd' } });
    const thrower = service(() => {
      throw 'a string';
    });
    expect(await call(thrower, 'listSessions', undefined)).toEqual({ ok: false, error: { code: 'NL_INTERNAL', message: 'a string' } });
  });

  describe('over the core service', () => {
    let dataDir: string;
    let core: CoreService;
    beforeEach(() => {
      dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'nl-invoke-'));
      core = new CoreService({ ...fakeBackends(), dataDir, startProxy: fakeProxy().start, batchMs: 5 });
    });
    afterEach(async () => {
      await core.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    });

    it('turns a handler refusing its fields into a bad-request reply', async () => {
      expect(await call(core, 'getExchange', { id: 5 })).toMatchObject({ ok: false, error: { code: ErrorCodes.API_BAD_REQUEST } });
      expect(await call(core, 'getExchange', { id: 'nope' })).toMatchObject({ ok: false, error: { code: ErrorCodes.NOT_FOUND } });
      expect(await call(core, 'listExchanges', undefined)).toEqual({ ok: true, result: [] });
      expect(warn).not.toHaveBeenCalled();
    });
  });
});
