/**
 * startLab's `variants` (issue 18): a variant is the app's current rules or an imported rules file's text, named
 * as `netlens lab --variant` names them. Good inputs reach the runner as LabVariant (rules inline, validated);
 * bad ones (empty or bad name, duplicate, invalid rules JSON, no proxy cell) are refused before any run.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { LabBackend } from '../../src/api/backends.js';
import { CoreService } from '../../src/api/core-service.js';
import { LabService } from '../../src/api/lab-service.js';
import type { LabConfig, LabResult } from '../../src/lab/types.js';
import type { RulesFile } from '../../src/rules/types.js';
import { variantBaseDir } from '../../src/lab/variants.js';
import { fakeBackends } from './fake-backends.js';
import { fakeProxy } from './helpers.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nl-lab-variants-api-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const site = { kind: 'site' as const, images: 2, latencyMs: 0 };
const SLOW: RulesFile = {
  version: 1,
  rules: [{ id: 'slow-img', match: { path: '/img/**' }, actions: [{ type: 'delay', before: 'response', ms: 300 }] }],
};
const slowText = JSON.stringify(SLOW);

function fakeLab(seen: LabConfig[]): LabBackend {
  return {
    available: true,
    run: async (config) => {
      seen.push(config);
      return new Promise<LabResult>(() => undefined); // never finishes: only the config matters here
    },
  };
}

function service(current?: RulesFile, seen: LabConfig[] = []): LabService {
  return new LabService(
    fakeLab(seen),
    dir,
    () => undefined,
    undefined,
    () => current,
  );
}

const base = { target: site, cells: ['direct+h2', 'proxy+h2+intercept'], runs: 2 };

describe('startLab variants: good inputs', () => {
  it('an imported file and the current rules become LabVariants with their rules inline; the run counts their cells', async () => {
    const seen: LabConfig[] = [];
    const labs = service(SLOW, seen);
    const variants = [
      { name: 'imported', source: 'file', fileName: 'slow.json', text: slowText },
      { name: 'mine', source: 'current' },
    ] as const;
    const { runId } = await labs.start({ ...base, cells: ['direct+h2', 'proxy+h2+intercept'], variants: [...variants] });
    expect(seen[0].variants).toEqual([
      { name: 'imported', file: 'slow.json', rules: SLOW },
      { name: 'mine', file: path.join(dir, 'rules.json'), rules: SLOW },
    ]);
    // "current": mock bodyFiles resolve against the data directory, as for the capture proxy.
    expect(variantBaseDir(seen[0].variants![1])).toBe(dir);
    // 2 cells + 2 variant cells of the proxy cell, 2 runs each.
    expect(await labs.get({ runId })).toMatchObject({ state: 'running', total: 8 });
  });

  it('no variants (absent or empty) leaves the config as before', () => {
    const labs = service();
    expect(labs.config(base)).not.toHaveProperty('variants');
    expect(labs.config({ ...base, variants: [] })).not.toHaveProperty('variants');
  });

  it('a variant cell can be the baseline; a variant cell not run cannot, and the message lists the cells that are', () => {
    const labs = service();
    const variants = [{ name: 'slow', source: 'file', fileName: 'slow.json', text: slowText }];
    expect(labs.config({ ...base, variants, baseline: 'proxy+h2+intercept~slow' }).baseline).toBe('proxy+h2+intercept~slow');
    expect(() => labs.config({ ...base, variants, baseline: 'proxy+h2+intercept~fast' })).toThrow(
      /baseline must be "direct" or one of the cells being run \(direct\+h2, proxy\+h2\+intercept, proxy\+h2\+intercept~slow\)/,
    );
  });
});

describe('startLab variants: bad inputs are refused before any run', () => {
  const labs = service(SLOW);
  const file = (name: string, text = slowText) => ({ name, source: 'file', fileName: 'slow.json', text });
  const refuse = (variants: unknown, code: string, message: RegExp, cells = base.cells) => {
    const call = () => labs.config({ ...base, cells, variants });
    expect(call).toThrow(message);
    expect(call).toThrow(expect.objectContaining({ code }));
  };

  it('an empty, blank or badly shaped name', () => {
    refuse([file('')], 'NL_API_BAD_REQUEST', /variants\[0\] has no name; give it one/);
    refuse([file('  ')], 'NL_API_BAD_REQUEST', /variants\[0\] has no name/);
    refuse([file('Slow Images')], 'NL_API_BAD_REQUEST', /variant name "Slow Images" must be 1-32 lowercase letters, digits or dashes/);
    refuse([file('a~b')], 'NL_API_BAD_REQUEST', /variant name "a~b"/);
    refuse([{ source: 'current' }], 'NL_API_BAD_REQUEST', /variants\[0\] has no name/);
  });

  it('a name given twice', () => {
    refuse([file('slow'), { name: 'slow', source: 'current' }], 'NL_API_BAD_REQUEST', /variant name "slow" is given twice/);
  });

  it('rules text that is not JSON, or JSON the rules validator refuses (naming the rule and field)', () => {
    refuse([file('broken', '{ "version": 1, ')], 'NL_RULES_FILE', /variant "broken": slow\.json is not JSON/);
    const badRule = { version: 1, rules: [{ id: 'late', match: {}, actions: [{ type: 'delay', before: 'later', ms: 1 }] }] };
    refuse(
      [file('bad', JSON.stringify(badRule))],
      'NL_RULES_INVALID',
      /variant "bad": .*rules\[0\] \(id "late"\): actions\[0\]\.before must be one of/s,
    );
    refuse([file('notrules', '[1, 2]')], 'NL_RULES_INVALID', /variant "notrules": /);
  });

  it('a mock body file cannot come with an imported text', () => {
    const mock = { version: 1, rules: [{ id: 'm', match: {}, actions: [{ type: 'mock', status: 200, bodyFile: 'x.json' }] }] };
    refuse([file('mocked', JSON.stringify(mock))], 'NL_RULES_INVALID', /variant "mocked": .*actions\[0\]\.bodyFile cannot be read/);
  });

  it('variants without any proxy cell ticked', () => {
    refuse([file('slow')], 'NL_API_BAD_REQUEST', /variants apply to the Netlens proxy cells .*none is among the cells \(direct\+h2\)/, [
      'direct+h2',
    ]);
  });

  it('the current rules when the app has none, an unknown source, and a non-array', () => {
    const none = service(undefined);
    expect(() => none.config({ ...base, variants: [{ name: 'mine', source: 'current' }] })).toThrow(
      /variant "mine" uses the current rules, and none is switched on/,
    );
    const off = service({ version: 1, rules: SLOW.rules.map((r) => ({ ...r, enabled: false })) });
    expect(() => off.config({ ...base, variants: [{ name: 'mine', source: 'current' }] })).toThrow(/none is switched on/);
    refuse([{ name: 'x', source: 'url' }], 'NL_API_BAD_REQUEST', /"source" must be "current" .* or "file"/);
    refuse({ name: 'x' }, 'NL_API_BAD_REQUEST', /"variants" must be an array/);
    refuse(
      Array.from({ length: 9 }, (_, i) => file(`v${i}`)),
      'NL_API_BAD_REQUEST',
      /at most 8 variants/,
    );
  });
});

describe('startLab variants through the core service', () => {
  it('"current" runs with the rules setRules put in force', async () => {
    const seen: LabConfig[] = [];
    const lab = fakeLab(seen);
    const data = fs.mkdtempSync(path.join(dir, 'core-'));
    const core = new CoreService({ ...fakeBackends({ lab }), dataDir: data, startProxy: fakeProxy().start, batchMs: 10 });
    try {
      await core.setRules({ rules: SLOW.rules });
      await core.startLab({ ...base, cells: ['proxy+h2+intercept'], variants: [{ name: 'mine', source: 'current' }] });
      expect(seen[0].variants).toEqual([{ name: 'mine', file: path.join(data, 'rules.json'), rules: SLOW }]);
      await expect(core.startLab({ ...base, cells: ['proxy+h2+intercept'], variants: [{ name: '', source: 'current' }] })).rejects.toThrow(
        /has no name/,
      );
    } finally {
      await core.close();
    }
  });
});
