/** docs/rules.md's examples are valid rules, and docs/rules.schema.json is the schema the code uses. */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { rulesProblems } from '../../src/rules/validate.js';
import { rulesSchema } from '../../src/rules/schema.js';
import { ACTION_TYPES } from '../../src/rules/schema.js';

const docs = path.join(import.meta.dirname, '..', '..', '..', 'docs');

describe('rules docs', () => {
  it('every JSON example in docs/rules.md validates, and every action type has one', () => {
    const md = fs.readFileSync(path.join(docs, 'rules.md'), 'utf8');
    const blocks = [...md.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => JSON.parse(m[1]!) as Record<string, unknown>);
    expect(blocks.length).toBeGreaterThan(6);
    const types = new Set<string>();
    for (const b of blocks) {
      const file = 'version' in b ? b : { version: 1, rules: [b] };
      expect(rulesProblems(file)).toEqual([]);
      for (const r of (file as { rules: { actions: { type: string }[] }[] }).rules) for (const a of r.actions) types.add(a.type);
    }
    expect([...types].sort()).toEqual([...ACTION_TYPES].sort());
  });

  it('docs/rules.schema.json is generated from proxy/src/rules/schema.ts (npx tsx scripts/rules-schema.ts)', () => {
    expect(JSON.parse(fs.readFileSync(path.join(docs, 'rules.schema.json'), 'utf8'))).toEqual(rulesSchema);
  });
});
