// Types for the test that imports the rule (the rule itself is plain JavaScript, loaded by eslint.config.js).
import type { Rule } from 'eslint';

declare const rule: Rule.RuleModule;
export default rule;
