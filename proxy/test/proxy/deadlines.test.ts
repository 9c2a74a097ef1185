/** The shared deadline sweep that replaces per-request timers on the upstream leg. */
import { describe, expect, it } from 'vitest';
import { Deadlines } from '../../src/upstream/deadlines.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('Deadlines', () => {
  it('fires an uncleared deadline once, after its time and within a tenth of it (plus one sweep)', async () => {
    const d = new Deadlines();
    const fired: number[] = [];
    const t0 = performance.now();
    d.add(200, () => fired.push(performance.now() - t0));
    await sleep(450);
    expect(fired).toHaveLength(1);
    expect(fired[0]).toBeGreaterThanOrEqual(200);
    d.close();
  });

  it('never fires a cleared deadline, and clear is idempotent', async () => {
    const d = new Deadlines();
    let fired = 0;
    const h = d.add(50, () => fired++);
    h.clear();
    h.clear();
    await sleep(150);
    expect(fired).toBe(0);
    d.close();
  });

  it('a short deadline added after a long one is still honoured (the sweep speeds up)', async () => {
    const d = new Deadlines();
    const order: string[] = [];
    d.add(60_000, () => order.push('long'));
    d.add(100, () => order.push('short'));
    await sleep(300);
    expect(order).toEqual(['short']);
    d.close();
  });

  it('close forgets every pending deadline', async () => {
    const d = new Deadlines();
    let fired = 0;
    d.add(30, () => fired++);
    d.close();
    await sleep(100);
    expect(fired).toBe(0);
  });
});
