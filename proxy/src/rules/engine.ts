/**
 * A rules set compiled once (matchers to closures, profiles resolved) and evaluated
 * per request into a Plan: what to do before the upstream and to the response.
 * Rules are tried in order; the first that matches ends the search unless it says
 * `continue`. A mock ends the search too (nothing after it can apply).
 */
import path from 'node:path';
import type {
  Action,
  DelayAction,
  FaultAction,
  MatchInput,
  MockAction,
  RewriteRequestAction,
  RewriteResponseAction,
  Rule,
  RuleHit,
  RulesFile,
} from './types.js';
import { compileMatcher, needsBody, RequestView, type CompiledMatcher } from './match.js';
import { PROFILES } from './profiles.js';
import { BREAKPOINT_DEFAULT_TIMEOUT_MS } from './breakpoints.js';

export interface Throttle {
  downloadBps: number;
  uploadBps: number;
  latencyMs: number;
}

/** Everything the matched rules ask for one exchange. */
export interface Plan {
  hits: RuleHit[];
  mock?: MockAction;
  /** close/reset/timeout act before the upstream; trickle/truncate on the response body. */
  fault?: FaultAction;
  requestDelayMs: number;
  responseDelayMs: number;
  throttle?: Throttle;
  rewriteRequest: RewriteRequestAction[];
  rewriteResponse: RewriteResponseAction[];
  /** The rule of each rewriteResponse action (same order): where a skipped rewrite is noted. */
  rewriteResponseBy: RuleHit[];
  /** Breakpoints (rules/breakpoints.ts): the auto-continue timeout of the pause before the upstream / before the client. */
  breakRequestMs?: number;
  breakResponseMs?: number;
}

interface CompiledRule {
  rule: Rule;
  test: CompiledMatcher;
  hit: RuleHit;
}

export class CompiledRules {
  readonly rules: readonly CompiledRule[];
  /** Whether any enabled rule matches on the request body (only then is it read before matching). */
  readonly needsBody: boolean;
  /** Directory relative bodyFile paths are resolved from. */
  readonly baseDir: string;
  /** Times each rule (by id) matched since this set was compiled. */
  readonly hitCounts = new Map<string, number>();

  constructor(file: RulesFile, baseDir = process.cwd()) {
    this.baseDir = baseDir;
    this.rules = file.rules
      .filter((r) => r.enabled !== false)
      .map((rule) => ({
        rule,
        test: compileMatcher(rule.match),
        hit: { id: rule.id, ...(rule.name ? { name: rule.name } : {}), actions: rule.actions.map(actionLabel) },
      }));
    this.needsBody = this.rules.some((r) => needsBody(r.rule.match));
  }

  /** The plan for one request, or undefined when no rule matches (the common case: nothing allocated). */
  evaluate(input: MatchInput): Plan | undefined {
    let plan: Plan | undefined;
    const view = new RequestView(input);
    for (const c of this.rules) {
      if (!c.test(view)) continue;
      plan ??= { hits: [], requestDelayMs: 0, responseDelayMs: 0, rewriteRequest: [], rewriteResponse: [], rewriteResponseBy: [] };
      plan.hits.push(c.hit);
      this.hitCounts.set(c.rule.id, (this.hitCounts.get(c.rule.id) ?? 0) + 1);
      for (const a of c.rule.actions) addAction(plan, a, c.hit);
      if (!c.rule.continue || plan.mock) break;
    }
    return plan;
  }

  resolveFile(file: string): string {
    return path.resolve(this.baseDir, file);
  }
}

function actionLabel(a: Action): string {
  if (a.type === 'fault') return `fault:${a.fault}`;
  if (a.type === 'delay') return `delay:${a.before}`;
  if (a.type === 'breakpoint') return `breakpoint:${a.on}`;
  if (a.type === 'throttle' && a.profile) return `throttle:${a.profile}`;
  return a.type;
}

function addAction(plan: Plan, a: Action, hit: RuleHit): void {
  switch (a.type) {
    case 'mock':
      plan.mock ??= a;
      break;
    case 'fault':
      plan.fault ??= a;
      break;
    case 'delay':
      addDelay(plan, a);
      break;
    case 'throttle': {
      const p = a.profile ? PROFILES[a.profile] : undefined;
      plan.throttle = {
        downloadBps: a.downloadKbps !== undefined ? (a.downloadKbps * 1000) / 8 : (p?.downloadBps ?? 0),
        uploadBps: a.uploadKbps !== undefined ? (a.uploadKbps * 1000) / 8 : (p?.uploadBps ?? 0),
        latencyMs: a.latencyMs ?? p?.latencyMs ?? 0,
      };
      break;
    }
    case 'rewriteRequest':
      plan.rewriteRequest.push(a);
      break;
    case 'rewriteResponse':
      plan.rewriteResponse.push(a);
      plan.rewriteResponseBy.push(hit);
      break;
    case 'breakpoint': {
      const ms = a.timeoutMs ?? BREAKPOINT_DEFAULT_TIMEOUT_MS;
      if (a.on === 'request') plan.breakRequestMs ??= ms;
      else plan.breakResponseMs ??= ms;
      break;
    }
  }
}

function addDelay(plan: Plan, a: DelayAction): void {
  if (a.before === 'request') plan.requestDelayMs += a.ms;
  else plan.responseDelayMs += a.ms;
}

/**
 * The rules a proxy uses now: replaced as a whole (file reload, API), read once per request,
 * so an exchange in flight keeps the set it started with.
 */
export class RulesHolder {
  current: CompiledRules | undefined;
  file: RulesFile | undefined;

  set(file: RulesFile | undefined, baseDir?: string): void {
    this.file = file;
    this.current = file && file.rules.some((r) => r.enabled !== false) ? new CompiledRules(file, baseDir) : undefined;
  }
}
