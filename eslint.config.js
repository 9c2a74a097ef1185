// ESLint flat config (issue 14). `npm run lint` runs it; `npm test` runs it too once
// LINT_AND_FORMAT_GATE in scripts/test.js is on.
//
// Deliberately not type-checked: the type-aware rules need a TypeScript program per
// tsconfig and make a run several times slower; `npm run lint:typed` (eslint.typed.config.js)
// adds them on demand. Formatting is Prettier's job, so no stylistic rules here.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { importX, createNodeResolver } from 'eslint-plugin-import-x';
import globals from 'globals';
import { defineConfig } from 'eslint/config';
import layers from './eslint.layers.js';
import noTypeImportCycle from './eslint-rules/no-type-import-cycle.js';

const nodeFolders = [
  'proxy/**',
  'electron/**',
  'bench/**',
  'scripts/**',
  'bin/**',
  'e2e/**',
  'eslint-rules/**',
  '*.{js,mjs,ts}',
  'renderer/vite.config.ts',
];

export default defineConfig(
  {
    ignores: [
      'dist/**',
      'out/**',
      'node_modules/**',
      'test-results/**',
      'playwright-report/**',
      'e2e/artifacts/**',
      'e2e-results.json',
      '.netlens-data/**',
      // Hand-written declarations for untyped packages, shaped after their JavaScript.
      'proxy/src/browser/vendor.d.ts',
    ],
  },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    languageOptions: { ecmaVersion: 2022, sourceType: 'module' },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // Unused names are real findings, but `_`-prefixed ones are the agreed way to say
      // "required by a signature, not used here" (handlers, callbacks, rest-omit).
      '@typescript-eslint/no-unused-vars': [
        'error',
        {
          argsIgnorePattern: '^_',
          varsIgnorePattern: '^_',
          destructuredArrayIgnorePattern: '^_',
          ignoreRestSiblings: true,
        },
      ],
      // Off: the 7 regexes it flags match control characters on purpose (binary-body sniffing,
      // shell quoting in curl.ts, NUL-free names in sessions, raw-wire test helpers).
      'no-control-regex': 'off',
    },
  },
  {
    files: nodeFolders,
    languageOptions: { globals: { ...globals.node } },
  },
  {
    // The React UI runs in a browser (Chromium or Electron's sandboxed renderer).
    files: ['renderer/src/**'],
    languageOptions: { globals: { ...globals.browser } },
  },
  {
    // Playwright specs and the preload script hand functions to the page, so their
    // bodies use browser globals too.
    files: ['e2e/**', 'electron/preload.ts', 'electron/testing/**'],
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
  },
  {
    // Tests stand in for other programs' objects (Electron's webContents, a child's JSON
    // report of any shape) where `any` is the honest type.
    files: ['**/*.test.ts', '**/*.test.tsx', 'proxy/test/**', 'e2e/**'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      // Playwright reads a fixture's first parameter as a destructuring pattern: `async ({}, use)`
      // is how a fixture says it depends on no other fixture.
      'no-empty-pattern': 'off',
    },
  },
  {
    // No import cycles, run-time or type-only: a cycle means two modules are one module or
    // a layer points up (issue 14, item 3). The resolver maps the NodeNext `.js` specifiers
    // to the TypeScript sources they name.
    files: ['proxy/**', 'renderer/**', 'electron/**', 'bench/**', 'scripts/**'],
    plugins: { 'import-x': importX, netlens: { rules: { 'no-type-import-cycle': noTypeImportCycle } } },
    settings: {
      // Which files the plugin may parse when it follows an import (it needs the TypeScript
      // parser for .ts/.tsx, or it silently skips them and finds no cycle at all).
      'import-x/extensions': ['.ts', '.tsx', '.js', '.mjs', '.cjs'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts', '.tsx'] },
      'import-x/resolver-next': [
        createNodeResolver({
          extensions: ['.ts', '.tsx', '.js', '.mjs', '.cjs', '.json', '.node'],
          extensionAlias: { '.js': ['.ts', '.tsx', '.js'], '.mjs': ['.mts', '.mjs'] },
        }),
      ],
    },
    rules: {
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
      // import-x/no-cycle skips type-only imports; this local rule reports the cycles that
      // pass through one (e.g. a context type importing the module that uses the context).
      'netlens/no-type-import-cycle': 'error',
    },
  },
  layers,
);
