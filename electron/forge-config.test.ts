import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
// @ts-expect-error plain JS config without type declarations
import config, { FORGE_PACKAGES, ignore } from '../forge.config.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
type Maker = { name: string; platforms: string[]; config: Record<string, unknown> };

describe('forge.config.js', () => {
  it('loads without Forge installed and names the app', () => {
    expect(config.packagerConfig).toMatchObject({
      name: 'Netlens',
      appBundleId: 'dev.netlens.desktop',
      asar: true,
      executableName: 'netlens-desktop',
    });
  });

  it('has makers for zip and deb, plus Squirrel and DMG', () => {
    const makers = config.makers as Maker[];
    expect(makers.map((m) => m.name)).toEqual([
      '@electron-forge/maker-zip',
      '@electron-forge/maker-deb',
      '@electron-forge/maker-squirrel',
      '@electron-forge/maker-dmg',
    ]);
    expect(makers[1].platforms).toEqual(['linux']);
    expect((makers[1].config.options as { bin: string }).bin).toBe(config.packagerConfig.executableName);
  });

  it('points at icons that exist, in every format a maker needs', () => {
    for (const ext of ['png', 'ico', 'icns', 'svg'])
      expect(fs.existsSync(path.join(root, `${config.packagerConfig.icon}.${ext}`)), ext).toBe(true);
    const png = fs.readFileSync(path.join(root, 'electron/assets/icon.png'));
    expect(png.subarray(1, 4).toString()).toBe('PNG');
    expect(png.readUInt32BE(16)).toBe(512);
  });

  it('flips the fuses: RunAsNode, NODE_OPTIONS and --inspect off; asar integrity on', () => {
    const fuses = (config.plugins as Array<{ name: string; config: Record<string, unknown> }>).find(
      (p) => p.name === '@electron-forge/plugin-fuses',
    )!.config;
    // Indices of @electron/fuses FuseV1Options.
    expect(fuses).toMatchObject({ version: '1', 0: false, 2: false, 3: false, 4: true, 5: true });
  });

  it('packages the built app and runtime files only', () => {
    for (const keep of [
      '',
      '/package.json',
      '/dist',
      '/dist/electron/main.mjs',
      '/dist/electron/preload.cjs',
      '/dist/renderer/index.html',
      '/electron',
      '/electron/assets/icon.png',
      '/node_modules/ws/index.js',
    ]) {
      expect(ignore(keep), keep).toBe(false);
    }
    for (const drop of [
      '/e2e/traffic.spec.ts',
      '/proxy/test/x.test.ts',
      '/renderer/src/App.tsx',
      '/electron/main.ts',
      '/dist/electron/main.mjs.map',
      '/test-results',
      '/bench/run.ts',
      '/.git/HEAD',
      '/electron/assets/make-icons.mjs',
    ]) {
      expect(ignore(drop), drop).toBe(true);
    }
  });

  it('pins one Forge 7 release for every Forge package it names (Forge 8 needs Node 22; we support Node 20)', () => {
    const pins = (FORGE_PACKAGES as string[]).map((p) => /^(@electron(?:-forge)?\/[a-z-]+)@(\d+)\.(\d+)\.(\d+)$/.exec(p));
    expect(pins.every(Boolean), FORGE_PACKAGES.join(' ')).toBe(true);
    const forge = pins.filter((m) => m![1].startsWith('@electron-forge/'));
    expect(new Set(forge.map((m) => m![0].split('@').at(-1))).size).toBe(1);
    expect(forge.every((m) => m![2] === '7')).toBe(true);
    expect(pins.find((m) => m![1] === '@electron/fuses')![2]).toBe('1');
    // Every plugin and maker the config uses is in the install list.
    const used = [
      ...(config.makers as Maker[]).map((m) => m.name),
      ...(config.plugins as Array<{ name: string }>).map((p) => p.name),
      '@electron-forge/cli',
    ];
    for (const name of used)
      expect(
        pins.some((m) => m![1] === name),
        name,
      ).toBe(true);
    const electron = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).devDependencies.electron as string;
    expect(Number(electron.split('.')[0])).toBeGreaterThanOrEqual(45);
  });
});
