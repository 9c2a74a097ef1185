/**
 * Electron Forge configuration: `npm run make` packages Netlens and builds
 * installers (zip everywhere, deb on Linux, Squirrel on Windows, DMG on macOS).
 *
 * Loads without any Forge package installed (plugins and makers are named by
 * string, fuse indices are written out), so tests can check it and a checkout
 * without Forge still works; Forge itself is a dev dependency added for packaging
 * (Forge ≥ 7.5 loads an ESM config, which this is: package.json has "type": "module").
 */
import { execFileSync } from 'node:child_process';

/**
 * @electron/fuses FuseV1Options indices and FuseVersion.V1, spelled out so
 * this file needs no import at load time (same values as the package's enums).
 */
const FuseVersionV1 = '1';
const Fuse = {
  RunAsNode: 0,
  EnableCookieEncryption: 1,
  EnableNodeOptionsEnvironmentVariable: 2,
  EnableNodeCliInspectArguments: 3,
  EnableEmbeddedAsarIntegrityValidation: 4,
  OnlyLoadAppFromAsar: 5,
};

/** What goes into the package: the built app, its icons, package.json and runtime dependencies. */
const KEEP = [/^\/package\.json$/, /^\/dist(\/(electron|renderer)(\/.*)?)?$/, /^\/electron(\/assets(\/.*)?)?$/, /^\/node_modules(\/.*)?$/];
const DROP = [/\.map$/, /^\/electron\/assets\/make-icons\.mjs$/];

/** Forge/packager passes paths relative to the app directory, starting with '/' ('' for the root). */
export function ignore(file) {
  if (file === '') return false;
  return !KEEP.some((re) => re.test(file)) || DROP.some((re) => re.test(file));
}

/**
 * What to install before `npm run make` (README's install line):
 * `npm install --save-dev ${FORGE_PACKAGES.join(' ')}`.
 *
 * Why Forge 7.11.2 and @electron/fuses 1.8.0 with Electron 45: Forge 8 and
 * fuses 2 need Node >= 22.12, and Netlens supports Node >= 20.19 (package.json
 * engines; CI runs Node 20). Forge 7 packages any Electron version: it takes the
 * version from package.json (@electron/get 3, @electron/packager 18 have no
 * upper bound). Move to Forge 8 together with the Node floor.
 */
export const FORGE_PACKAGES = [
  '@electron-forge/cli@7.11.2',
  '@electron-forge/maker-zip@7.11.2',
  '@electron-forge/maker-deb@7.11.2',
  '@electron-forge/maker-squirrel@7.11.2',
  '@electron-forge/maker-dmg@7.11.2',
  '@electron-forge/plugin-fuses@7.11.2',
  '@electron/fuses@1.8.0',
];

const run = (cmd, args) => execFileSync(cmd, args, { stdio: 'inherit', shell: process.platform === 'win32' });

export default {
  packagerConfig: {
    name: 'Netlens',
    executableName: 'netlens-desktop',
    appBundleId: 'dev.netlens.desktop',
    appCategoryType: 'public.app-category.developer-tools',
    // No extension: the packager picks icon.icns (macOS), icon.ico (Windows), icon.png (Linux).
    icon: 'electron/assets/icon',
    asar: true,
    ignore,
    win32metadata: { CompanyName: 'Netlens', FileDescription: 'Netlens network inspector' },
  },
  rebuildConfig: {},
  hooks: {
    // The packaged app runs the built renderer and the bundled main/preload; build both first.
    generateAssets: async () => {
      run('npm', ['run', 'build']);
      run(process.execPath, ['scripts/build-electron.mjs']);
    },
  },
  makers: [
    { name: '@electron-forge/maker-zip', platforms: ['darwin', 'linux', 'win32'], config: {} },
    {
      name: '@electron-forge/maker-deb',
      platforms: ['linux'],
      config: {
        options: {
          name: 'netlens',
          productName: 'Netlens',
          bin: 'netlens-desktop',
          genericName: 'Network inspector',
          description: 'Network inspector and network-performance lab: intercepting proxy, HAR capture, headless-Chrome lab.',
          categories: ['Development', 'Network'],
          section: 'devel',
          icon: 'electron/assets/icon.png',
        },
      },
    },
    {
      name: '@electron-forge/maker-squirrel',
      platforms: ['win32'],
      // iconUrl (the Control Panel icon, fetched by URL) is left for whoever publishes a release.
      config: { name: 'netlens', setupIcon: 'electron/assets/icon.ico' },
    },
    {
      name: '@electron-forge/maker-dmg',
      platforms: ['darwin'],
      config: { name: 'Netlens', icon: 'electron/assets/icon.icns', format: 'ULFO' },
    },
  ],
  plugins: [
    {
      name: '@electron-forge/plugin-fuses',
      config: {
        version: FuseVersionV1,
        [Fuse.RunAsNode]: false,
        [Fuse.EnableCookieEncryption]: true,
        [Fuse.EnableNodeOptionsEnvironmentVariable]: false,
        [Fuse.EnableNodeCliInspectArguments]: false,
        [Fuse.EnableEmbeddedAsarIntegrityValidation]: true,
        [Fuse.OnlyLoadAppFromAsar]: true,
      },
    },
  ],
};
