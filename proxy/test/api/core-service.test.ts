import { afterEach, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CoreService } from '../../src/api/core-service.js';
import type { LabBackend } from '../../src/api/backends.js';
import type { LabResult, NetlensEvent } from '../../src/api/contract.js';
import { fakeProxy } from './helpers.js';
import { fakeResult, WALKTHROUGH } from '../lab/fake-result.js';
import { writeRun } from '../lab/write-run.js';
import { fakeBackends } from './fake-backends.js';

const dirs: string[] = [];
const services: CoreService[] = [];
afterEach(async () => {
  await Promise.all(services.splice(0).map((s) => s.close()));
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function service(lab?: LabBackend) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'netlens-core-'));
  dirs.push(dir);
  const s = new CoreService({ ...fakeBackends(lab ? { lab } : {}), dataDir: dir, startProxy: fakeProxy().start, batchMs: 10 });
  services.push(s);
  const events: NetlensEvent[] = [];
  s.subscribe((e) => events.push(e));
  return { s, events, dir };
}

const until = async (cond: () => boolean) => {
  for (let i = 0; i < 200 && !cond(); i++) await new Promise((r) => setTimeout(r, 10));
  expect(cond()).toBe(true);
};

/** A lab backend that reports progress per page load and honours the AbortSignal. */
function fakeLab(loadMs = 5): LabBackend {
  return {
    available: true,
    async run(config, { signal, onProgress }) {
      const total = config.cells!.length * config.runs!;
      onProgress({ type: 'start', total, cells: config.cells!, url: 'https://127.0.0.1/', expectedRequests: 3 });
      let completed = 0;
      for (let i = 0; i < total; i++) {
        if (signal.aborted) break;
        onProgress({ type: 'run-start', completed, total, cell: config.cells![i % config.cells!.length]!, round: 0 });
        await new Promise((r) => setTimeout(r, loadMs));
        completed++;
      }
      fs.mkdirSync(path.join(config.outDir!, 'har'), { recursive: true });
      fs.writeFileSync(
        path.join(config.outDir!, 'har', 'run.har'),
        JSON.stringify({ log: { version: '1.2', creator: { name: 't', version: '1' }, entries: [] } }),
      );
      return { aborted: signal.aborted, cells: [], config: { ...config, alpha: 0.05 } } as unknown as LabResult;
    },
  };
}

describe('core service: lab runs', () => {
  it('says clearly when the lab is not installed', async () => {
    const { s } = service();
    expect((await s.getLabOptions()).available).toBe(false);
    await expect(s.startLab({ target: { kind: 'site', images: 5, latencyMs: 0 }, cells: ['direct+h2'], runs: 1 })).rejects.toMatchObject({
      code: 'NL_FEATURE_UNAVAILABLE',
    });
  });

  it('validates the configuration with messages naming the field', async () => {
    const { s } = service(fakeLab());
    await expect(s.startLab({ target: { kind: 'site', images: -1, latencyMs: 0 }, cells: ['direct+h2'], runs: 1 })).rejects.toThrow(
      /images/,
    );
    await expect(s.startLab({ target: { kind: 'url', url: 'file:///etc/passwd' }, cells: ['direct+h2'], runs: 1 })).rejects.toThrow(/http/);
    await expect(s.startLab({ target: { kind: 'site', images: 3, latencyMs: 0 }, cells: ['direct+h3' as never], runs: 1 })).rejects.toThrow(
      /cell/,
    );
    await expect(s.startLab({ target: { kind: 'site', images: 3, latencyMs: 0 }, cells: ['direct+h2'], runs: 0 })).rejects.toThrow(/runs/);
  });

  it('streams progress, finishes, and serves the HARs it wrote (only inside the run directory)', async () => {
    const { s, events } = service(fakeLab());
    const { runId } = await s.startLab({ target: { kind: 'site', images: 3, latencyMs: 0 }, cells: ['direct+h2', 'direct+h1'], runs: 2 });
    await until(() => events.some((e) => e.type === 'lab-finished'));
    const progress = events.filter((e) => e.type === 'lab-progress');
    expect(progress.length).toBeGreaterThanOrEqual(4);
    expect((await s.getLabRun({ runId })).state).toBe('done');
    expect((await s.getLabHar({ runId, file: 'har/run.har' })).entries).toEqual([]);
    await expect(s.getLabHar({ runId, file: '../../../etc/passwd' })).rejects.toMatchObject({ code: 'NL_API_BAD_REQUEST' });
    await expect(s.getLabHar({ runId, file: 'har/none.har' })).rejects.toMatchObject({ code: 'NL_NOT_FOUND' });
  });

  it('refuses a baseline that is not among the cells, and runs outside the shared limits (issue 15)', async () => {
    const { s } = service(fakeLab());
    const target = { kind: 'site' as const, images: 3, latencyMs: 0 };
    await expect(
      s.startLab({ target, cells: ['proxy+h1+intercept+nagle'], runs: 2, baseline: 'proxy+h1+intercept' }),
    ).rejects.toMatchObject({
      code: 'NL_API_BAD_REQUEST',
      message: expect.stringMatching(/baseline cell "proxy\+h1\+intercept" is not among the cells being run/),
    });
    await expect(s.startLab({ target, cells: ['proxy+h1+intercept+nagle'], runs: 2, baseline: 'direct' })).rejects.toThrow(
      /no direct cell/,
    );
    await expect(s.startLab({ target, cells: ['direct+h2'], runs: 2, baseline: 'bogus' as never })).rejects.toThrow(/baseline must be/);
    for (const runs of [0, -1, 1.5, 1e9, '5' as never])
      await expect(s.startLab({ target, cells: ['direct+h2'], runs })).rejects.toThrow(/runs must be a whole number from 1 to 1,000/);
    // Good ones next to them: the baseline among the cells, and the limits' edges.
    await expect(
      s.startLab({ target, cells: ['proxy+h1+intercept', 'proxy+h1+intercept+nagle'], runs: 1, baseline: 'proxy+h1+intercept' }),
    ).resolves.toHaveProperty('runId');
    await expect(
      s.startLab({ target: { ...target, images: 0 }, cells: ['direct+h2'], runs: 1, baseline: 'direct' }),
    ).resolves.toHaveProperty('runId');
    const o = await s.getLabOptions();
    expect(o.defaults).toMatchObject({ runs: 5, baseline: 'direct', target: { kind: 'site', images: 1000 } });
    expect(o.defaults.cells).toContain('direct+h2');
  });

  it('keeps a history on disk: lists (damaged ones with a reason), opens, compares, exports and deletes runs', async () => {
    const { s, dir } = service(fakeLab());
    const lab = path.join(dir, 'lab');
    writeRun(path.join(lab, '2026-11-23T09-00-00-000Z-1'), fakeResult(WALKTHROUGH, { withHars: true }));
    writeRun(path.join(lab, '2026-11-23T10-00-00-000Z-2'), fakeResult(WALKTHROUGH, { startedAt: '2026-11-23T10:00:00.000Z' }));
    fs.mkdirSync(path.join(lab, '2026-11-23T11-00-00-000Z-3'));
    fs.writeFileSync(path.join(lab, '2026-11-23T11-00-00-000Z-3', 'results.json'), '{"schemaVersion":1,"cel');
    const { runs } = await s.listLabRuns();
    expect(runs.map((r) => [r.runId, r.state])).toEqual([
      ['2026-11-23T11-00-00-000Z-3', 'damaged'],
      ['2026-11-23T10-00-00-000Z-2', 'ok'],
      ['2026-11-23T09-00-00-000Z-1', 'ok'],
    ]);
    // A fresh service (the app restarted) opens a run from disk.
    const run = await s.getLabRun({ runId: '2026-11-23T09-00-00-000Z-1' });
    expect(run.state === 'done' && run.result.cells).toHaveLength(2);
    await expect(s.getLabRun({ runId: '2026-11-23T11-00-00-000Z-3' })).rejects.toMatchObject({ code: 'NL_LAB_RESULT_INVALID' });
    await expect(s.getLabRun({ runId: '../../etc' })).rejects.toMatchObject({ code: 'NL_API_BAD_REQUEST' });
    await expect(s.getLabRun({ runId: 'no-such-run' })).rejects.toMatchObject({ code: 'NL_NOT_FOUND' });
    const cmp = await s.compareLabRuns({ a: '2026-11-23T09-00-00-000Z-1', b: '2026-11-23T10-00-00-000Z-2' });
    expect(cmp.cells).toHaveLength(2);
    await expect(s.compareLabRuns({ a: '2026-11-23T09-00-00-000Z-1', b: '2026-11-23T09-00-00-000Z-1' })).rejects.toThrow(
      /two different runs/,
    );
    const report = await s.exportLabReport({ runId: '2026-11-23T09-00-00-000Z-1' });
    expect(report.fileName).toBe('netlens-lab-2026-11-23T09-00-00-000Z-1.html');
    expect(report.text).toContain('<svg class="wf"');
    expect((await s.getLabHar({ runId: '2026-11-23T09-00-00-000Z-1', file: 'har/0000-direct+h2.browser.har' })).entries).toHaveLength(4);
    expect(await s.deleteLabRun({ runId: '2026-11-23T11-00-00-000Z-3' })).toEqual({ deleted: true });
    expect((await s.listLabRuns()).runs).toHaveLength(2);
  });

  it('cancels a running lab', async () => {
    const { s, events } = service(fakeLab(50));
    const { runId } = await s.startLab({ target: { kind: 'site', images: 3, latencyMs: 0 }, cells: ['direct+h2'], runs: 20 });
    expect(await s.cancelLab({ runId })).toEqual({ cancelled: true });
    await until(() => events.some((e) => e.type === 'lab-finished'));
    expect((await s.getLabRun({ runId })).state).toBe('cancelled');
    expect(await s.cancelLab({ runId })).toEqual({ cancelled: false });
  });
});

describe('core service: proxy settings', () => {
  it('rejects bad settings and restarts the proxy with good ones', async () => {
    const { s, events } = service();
    await expect(s.configureProxy({ port: 70000 })).rejects.toMatchObject({ code: 'NL_API_BAD_REQUEST' });
    await expect(s.configureProxy({ nagle: 'yes' as never })).rejects.toThrow(/nagle/);
    const off = await s.configureProxy({ nagle: true });
    expect(off).toMatchObject({ running: false, config: { nagle: true } });
    const on = await s.startProxy();
    expect(on).toMatchObject({ running: true, config: { nagle: true } });
    expect(events.filter((e) => e.type === 'proxy-status').length).toBeGreaterThanOrEqual(2);
  });

  it('reports a proxy that cannot start, with the reason', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'netlens-core-'));
    dirs.push(dir);
    const s = new CoreService({
      ...fakeBackends(),
      dataDir: dir,
      startProxy: async () => {
        throw Object.assign(new Error('port 8080 is in use'), { code: 'NL_PORT_IN_USE' });
      },
    });
    services.push(s);
    await expect(s.startProxy()).rejects.toMatchObject({ code: 'NL_PORT_IN_USE' });
    const status = await s.getStatus();
    expect(status.proxy.running).toBe(false);
    expect(status.proxy.error).toMatchObject({ code: 'NL_PORT_IN_USE' });
    // The CA is still shown so users can trust it before the proxy runs.
    expect(status.proxy.ca?.certPath).toContain(dir);
  });
});
