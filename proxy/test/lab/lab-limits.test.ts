/**
 * Issue 14 item 1: the lab's limits are declared once (lab/limits.ts) and the CLI,
 * the API and the runner refuse the same values, at the same edges.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LabService } from '../../src/api/lab-service.js';
import { unavailableLab } from '../api/fake-backends.js';
import { LAB_DEFAULTS, LAB_LIMITS, limitRange, type LabLimitName } from '../../src/lab/limits.js';
import { resolveLabConfig } from '../../src/lab/runner.js';
import type { LabConfig } from '../../src/lab/types.js';
import { cli } from '../cli/run-cli.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nl-lab-limits-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const api = new LabService(unavailableLab, dir, () => undefined);
const site = { kind: 'site' as const, images: 2, latencyMs: 0 };

/** Just outside each end, and not whole. */
const outside = (name: LabLimitName) => [LAB_LIMITS[name].min - 1, LAB_LIMITS[name].max + 1, LAB_LIMITS[name].min + 0.5];
const edges = (name: LabLimitName) => [LAB_LIMITS[name].min, LAB_LIMITS[name].max];

/** How each layer is given one setting. */
const layers: Record<LabLimitName, { cli: (v: number) => string[]; runner: (v: number) => LabConfig; api?: (v: number) => unknown }> = {
  runs: {
    cli: (v) => ['lab', `--runs=${v}`, '--cells', 'direct+h2'],
    runner: (v) => ({ target: site, cells: ['direct+h2'], runs: v }),
    api: (v) => ({ target: site, cells: ['direct+h2'], runs: v }),
  },
  images: {
    cli: (v) => ['lab', `--images=${v}`],
    runner: (v) => ({ target: { ...site, images: v } }),
    api: (v) => ({ target: { ...site, images: v }, cells: ['direct+h2'], runs: 5 }),
  },
  latencyMs: {
    cli: (v) => ['lab', `--latency=${v}`],
    runner: (v) => ({ target: { ...site, latencyMs: v } }),
    api: (v) => ({ target: { ...site, latencyMs: v }, cells: ['direct+h2'], runs: 5 }),
  },
  quietMs: { cli: (v) => ['lab', `--quiet-ms=${v}`], runner: (v) => ({ target: site, quietMs: v }) },
  timeoutMs: { cli: (v) => ['lab', `--timeout-ms=${v}`], runner: (v) => ({ target: site, timeoutMs: v }) },
  // The CLI's and the runner's (the Lab view does not offer it).
  browserNice: { cli: (v) => ['lab', `--browser-nice=${v}`], runner: (v) => ({ target: site, browserNice: v }) },
  expectedRequests: {
    cli: (v) => ['lab', '--url', 'https://example.com/', `--expected-requests=${v}`],
    runner: (v) => ({ target: { kind: 'url', url: 'https://example.com/', expectedRequests: v } }),
  },
};

describe('one set of lab limits', () => {
  for (const name of Object.keys(LAB_LIMITS) as LabLimitName[]) {
    const layer = layers[name];

    it(`${name}: the CLI refuses what is outside ${limitRange(name)}, naming the range`, async () => {
      for (const v of outside(name)) {
        const r = await cli(layer.cli(v));
        expect(r.code, `${name}=${v}`).toBe(2);
        expect(r.err).toContain(`between ${LAB_LIMITS[name].min} and ${LAB_LIMITS[name].max}`);
      }
    });

    it(`${name}: the runner refuses the same values and takes the edges`, () => {
      for (const v of outside(name)) expect(() => resolveLabConfig(layer.runner(v)), `${name}=${v}`).toThrow(/must be a whole number from/);
      for (const v of edges(name)) expect(() => resolveLabConfig(layer.runner(v)), `${name}=${v}`).not.toThrow();
    });

    if (layer.api) {
      const toApi = layer.api;
      it(`${name}: the API refuses the same values and takes the edges`, () => {
        for (const v of outside(name)) {
          expect(() => api.config(toApi(v)), `${name}=${v}`).toThrow(expect.objectContaining({ code: 'NL_API_BAD_REQUEST' }));
        }
        for (const v of edges(name)) expect(() => api.config(toApi(v)), `${name}=${v}`).not.toThrow();
      });
    }
  }

  it('the API offers the declared defaults, and the runner falls back to them', () => {
    const options = api.options();
    expect(options.defaults.target).toEqual(LAB_DEFAULTS.target);
    expect(options.defaults.runs).toBe(LAB_DEFAULTS.runs);
    expect(options.defaults.baseline).toBe(LAB_DEFAULTS.baseline);
    expect(options.defaults.cells).toEqual(LAB_DEFAULTS.uiCells);
    const resolved = resolveLabConfig({ target: site, cells: ['direct+h2'] });
    expect(resolved.runs).toBe(LAB_DEFAULTS.runs);
    expect(resolved.baseline).toBe(LAB_DEFAULTS.baseline);
    expect(resolved.quietMs).toBe(LAB_LIMITS.quietMs.default);
    expect(resolved.timeoutMs).toBe(LAB_LIMITS.timeoutMs.default);
    // The browser runs below the proxy and the site unless told otherwise; 0 asks for the normal priority.
    expect(resolved.browserNice).toBe(10);
    expect(resolveLabConfig({ target: site, cells: ['direct+h2'], browserNice: 0 }).browserNice).toBeUndefined();
    expect(resolveLabConfig({ target: site, cells: ['direct+h2'], browserNice: 3 }).browserNice).toBe(3);
  });

  it('the CLI help shows every range', async () => {
    const r = await cli(['lab', '--help']);
    for (const name of Object.keys(LAB_LIMITS) as LabLimitName[]) expect(r.out, name).toContain(limitRange(name));
  });
});
