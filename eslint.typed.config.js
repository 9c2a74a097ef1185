// Opt-in type-aware lint: `npm run lint:typed`. The everyday config (eslint.config.js) stays
// fast; this one builds a TypeScript program per tsconfig (root, renderer/, e2e/) and adds
// typescript-eslint's type-checked rules (floating promises, unsafe `any` flows, ...).
// Findings here are advice, not a gate: `npm test` does not run it.
import tseslint from 'typescript-eslint';
import { defineConfig } from 'eslint/config';
import base from './eslint.config.js';

export default defineConfig(
  base,
  // Only the rules that need types: the rest (and this project's settings of them) come from base.
  tseslint.configs.recommendedTypeCheckedOnly,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
  },
  {
    // Plain-JS files are in no tsconfig: lint them without type information.
    files: ['**/*.{js,mjs,cjs}'],
    extends: [tseslint.configs.disableTypeChecked],
  },
);
