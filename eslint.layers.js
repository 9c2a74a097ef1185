// Layer rules (issue 14, item 3): which part of the code may import which.
// eslint.config.js spreads the default export; proxy/test/layers/imports.test.ts checks the
// same order with its own import parser, so it holds in `vitest run` without ESLint.
// The order is explained in docs/architecture.md.
import path from 'node:path';
import { createNodeResolver, importX } from 'eslint-plugin-import-x';

const ROOT = import.meta.dirname;

/**
 * proxy/src, bottom layer first. A module may import from its own layer and the layers
 * below it, never from a layer above. Members are folders of proxy/src or, for the
 * modules at its top, file names without `.ts`. Folders named here that do not exist
 * yet (rules, timeline) are placed for branches about to land.
 */
export const PROXY_LAYERS = [
  {
    name: 'core',
    why: 'shared vocabulary: errors, the exchange model and its event stream, header helpers, where files are, a GC-safe list, ISO times',
    members: ['errors', 'model', 'events', 'headers', 'plural', 'lazy-require', 'app-paths', 'linked-list', 'iso-time'],
  },
  {
    name: 'formats and wire',
    why: 'HAR files, certificates, the upstream client, the browser launcher: each on its own, knowing nothing of the proxy',
    members: ['har', 'tls', 'upstream', 'browser', 'timeline'],
  },
  {
    name: 'proxy',
    why: 'the proxy server and its options, and the session store it records into',
    members: ['options', 'server', 'sessions', 'rules'],
  },
  { name: 'features', why: 'what is built on a running proxy: replay and the lab', members: ['replay', 'lab'] },
  { name: 'api', why: 'the application: the contract, its commands and its transports', members: ['api'] },
  { name: 'entry points', why: 'the CLI and the library entry (index.ts)', members: ['cli', 'index'] },
];

/**
 * Imports that point up and could not be removed here, each with its reason. `from` is a
 * module path under proxy/src or '*' (any module); `to` is the module imported. The
 * layers test fails on an exception that no import needs any more: delete it then.
 */
export const LAYER_EXCEPTIONS = [];

const proxyPath = (member) => {
  const file = `proxy/src/${member}.ts`;
  // A member is a folder unless a top-level module of that name is meant (core, index).
  return [
    'errors',
    'model',
    'events',
    'headers',
    'plural',
    'lazy-require',
    'app-paths',
    'linked-list',
    'iso-time',
    'options',
    'index',
  ].includes(member)
    ? file
    : `proxy/src/${member}`;
};

function layerZones() {
  const zones = [];
  PROXY_LAYERS.forEach((layer, i) => {
    const above = PROXY_LAYERS.slice(i + 1);
    if (above.length === 0) return;
    const target = layer.members.map(proxyPath);
    for (const upper of above) {
      for (const member of upper.members) {
        const from = proxyPath(member);
        const except = LAYER_EXCEPTIONS.filter((e) => proxyPath(e.to.split('/')[0]) === from && e.to.includes('/'))
          .filter((e) => e.from === '*' || layer.members.some((m) => e.from === `${m}.ts` || e.from.startsWith(`${m}/`)))
          .map((e) => `./${e.to.split('/').slice(1).join('/')}`);
        zones.push({
          target,
          from,
          ...(except.length ? { except } : {}),
          message: `Layer "${layer.name}" must not import from "${upper.name}" (${member}): see eslint.layers.js and docs/architecture.md.`,
        });
      }
    }
  });
  return zones;
}

// The rules need imports resolved to files (NodeNext `.js` specifiers name `.ts` sources);
// an import the resolver cannot follow is silently not checked. Same as eslint.config.js.
const resolverSettings = {
  'import-x/extensions': ['.ts', '.tsx', '.js', '.mjs', '.cjs'],
  'import-x/parsers': { '@typescript-eslint/parser': ['.ts', '.tsx'] },
  'import-x/resolver-next': [
    createNodeResolver({
      extensions: ['.ts', '.tsx', '.js', '.mjs', '.cjs', '.json', '.node'],
      extensionAlias: { '.js': ['.ts', '.tsx', '.js'], '.mjs': ['.mts', '.mjs'] },
    }),
  ],
};

export default [
  {
    // proxy/src: no import from a layer above; the core knows nothing of Electron or React.
    files: ['proxy/src/**/*.ts'],
    plugins: { 'import-x': importX },
    settings: resolverSettings,
    rules: {
      'import-x/no-restricted-paths': [
        'error',
        {
          basePath: ROOT,
          zones: [
            ...layerZones(),
            {
              target: 'proxy',
              from: ['electron', 'renderer'],
              message: 'proxy/ is the core: it imports nothing from electron/ or renderer/ (they import it).',
            },
          ],
        },
      ],
    },
  },
  {
    // The UI runs in a browser or Electron's sandboxed renderer: no Node built-ins, nothing from electron/.
    files: ['renderer/src/**/*.{ts,tsx}'],
    ignores: ['renderer/src/**/*.test.{ts,tsx}'],
    plugins: { 'import-x': importX },
    settings: resolverSettings,
    rules: {
      'import-x/no-nodejs-modules': 'error',
      'import-x/no-restricted-paths': [
        'error',
        {
          basePath: ROOT,
          zones: [
            {
              target: 'renderer',
              from: ['electron', 'proxy/src/server', 'proxy/src/upstream', 'proxy/src/tls', 'proxy/src/cli'],
              message: 'The renderer talks to the core through the API contract (proxy/src/api/contract.ts), never to Node-side modules.',
            },
          ],
        },
      ],
    },
  },
  {
    // Electron hosts the core and serves the built UI (dist/renderer); it never imports the UI's sources.
    files: ['electron/**/*.ts'],
    plugins: { 'import-x': importX },
    settings: resolverSettings,
    rules: {
      'import-x/no-restricted-paths': [
        'error',
        {
          basePath: ROOT,
          zones: [{ target: 'electron', from: 'renderer', message: 'electron/ serves dist/renderer; it imports nothing from renderer/.' }],
        },
      ],
    },
  },
];

/** For the layers test: the repository root the paths above are relative to. */
export const LAYERS_ROOT = path.resolve(ROOT);
