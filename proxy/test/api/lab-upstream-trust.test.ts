/**
 * The app's lab (startLab over the API) trusts an https URL target as the
 * capture proxy's Settings say: upstream CA files and insecure reach runLab;
 * the built-in site (signed by the Netlens CA) gets neither. Issue 15 item 1.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { LabBackend } from '../../src/api/backends.js';
import { LabService } from '../../src/api/lab-service.js';
import type { LabConfig, LabResult } from '../../src/lab/types.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nl-lab-trust-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function fakeLab(seen: LabConfig[]): LabBackend {
  return {
    available: true,
    run: async (config) => {
      seen.push(config);
      return new Promise<LabResult>(() => undefined); // never finishes: only the config matters here
    },
  };
}

describe('LabService: Settings trust for URL targets', () => {
  it('passes the CA files and insecure for an https URL, nothing for the built-in site', async () => {
    const seen: LabConfig[] = [];
    const trust = () => ({ upstreamCA: ['-----BEGIN CERTIFICATE-----\nX\n-----END CERTIFICATE-----\n'], insecure: true });
    const labs = new LabService(fakeLab(seen), dir, () => undefined, trust);
    await labs.start({ target: { kind: 'url', url: 'https://staging.example/' }, cells: ['direct+h2'], runs: 1 });
    await labs.start({ target: { kind: 'site', images: 1, latencyMs: 0 }, cells: ['direct+h2'], runs: 1 });
    expect(seen[0]).toMatchObject({ upstreamCA: [expect.stringContaining('BEGIN CERTIFICATE')], insecure: true });
    expect(seen[1].upstreamCA).toBeUndefined();
    expect(seen[1].insecure).toBeUndefined();
  });

  it('with no CA files and insecure off the config carries neither', async () => {
    const seen: LabConfig[] = [];
    const labs = new LabService(
      fakeLab(seen),
      dir,
      () => undefined,
      () => ({ upstreamCA: [], insecure: false }),
    );
    await labs.start({ target: { kind: 'url', url: 'https://staging.example/' }, cells: ['direct+h2'], runs: 1 });
    expect(seen[0]).not.toHaveProperty('upstreamCA');
    expect(seen[0]).not.toHaveProperty('insecure');
  });
});
