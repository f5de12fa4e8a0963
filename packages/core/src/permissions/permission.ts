import { z } from "zod";
import { type PermissionAction, PermissionActionSchema, type PermissionRule } from "../model/permission-rule.js";
import { type ApprovalRule, isApproved } from "./approvals.js";
import { wildcardMatch } from "./wildcard.js";

/**
 * Permission evaluation, all pure. A rule says what to do when a tool asks
 * `permission` for something matching `pattern`; both fields are wildcard patterns (`*`, `?`). The
 * last matching rule wins, so rule sets are merged by concatenation: defaults → agent → user config
 * → trace context, later sets overriding earlier ones.
 */
export {
  type PermissionAction,
  PermissionActionSchema,
  type PermissionRule,
  PermissionRuleSchema,
} from "../model/permission-rule.js";

/**
 * The config form (OpenCode's): `{ "read": "allow", "edit": { "*": "ask", "src/*": "allow" } }`.
 * A bare action means pattern `*`. Key order is rule order.
 */
export const PermissionConfigSchema = z.record(
  z.string().min(1),
  z.union([PermissionActionSchema, z.record(z.string().min(1), PermissionActionSchema)]),
);
export type PermissionConfig = z.infer<typeof PermissionConfigSchema>;

export function rulesFromConfig(config: PermissionConfig): PermissionRule[] {
  const rules: PermissionRule[] = [];
  for (const [permission, value] of Object.entries(config)) {
    if (typeof value === "string") {
      rules.push({ permission, pattern: "*", action: value });
    } else {
      for (const [pattern, action] of Object.entries(value)) rules.push({ permission, pattern, action });
    }
  }
  return rules;
}

export function mergeRules(...sets: ReadonlyArray<readonly PermissionRule[] | undefined>): PermissionRule[] {
  return sets.flatMap((set) => set ?? []);
}

/** Reading env files asks (their secrets would go to the provider), except the example file. */
export const SENSITIVE_READ_CONFIG: PermissionConfig = {
  read: { "*": "allow", "*.env": "ask", "*.env.*": "ask", "*.env.example": "allow" },
};

/**
 * OpenCode-like defaults: everything allowed, except that a doom loop, a path outside the workspace,
 * reading env files and widening the sandbox (a write outside the workspace, a host not allowed) ask first,
 * and switching into or out of plan mode is left to the presets that imply it (build enters, plan exits).
 */
export const DEFAULT_RULES: readonly PermissionRule[] = Object.freeze(
  rulesFromConfig({
    "*": "allow",
    doom_loop: "ask",
    external_directory: "ask",
    sandbox: "ask",
    ...SENSITIVE_READ_CONFIG,
    plan_enter: "deny",
    plan_exit: "deny",
  }),
);

/**
 * A sub-agent never has more rights than the agent that started it: its rules become its own
 * level, the caller's (with the caller's own caps) the levels above, and every level must allow
 * what is done. Concatenating cannot express this (the last match wins, so one set would override
 * the other), hence the level mark on each rule. Pure.
 */
export function capToCaller(own: readonly PermissionRule[], caller: readonly PermissionRule[] | undefined): PermissionRule[] {
  if (!caller) return [...own];
  return [...own, ...caller.map((rule) => ({ ...rule, callerLevel: (rule.callerLevel ?? 0) + 1 }))];
}

/** The rules of each level, own rules (level 0) first; order within a level is kept. */
function levels(rules: readonly PermissionRule[]): PermissionRule[][] {
  const byLevel = new Map<number, PermissionRule[]>([[0, []]]);
  for (const rule of rules) {
    const level = rule.callerLevel ?? 0;
    const set = byLevel.get(level);
    if (set) set.push(rule);
    else byLevel.set(level, [rule]);
  }
  return [...byLevel.entries()].sort(([a], [b]) => a - b).map(([, set]) => set);
}

function lastMatch(rules: readonly PermissionRule[], permission: string, pattern: string): PermissionRule | undefined {
  for (let i = rules.length - 1; i >= 0; i--) {
    const rule = rules[i]!;
    if (wildcardMatch(rule.permission, permission) && wildcardMatch(rule.pattern, pattern)) return rule;
  }
  return undefined;
}

const SEVERITY: Record<PermissionAction, number> = { allow: 0, ask: 1, deny: 2 };

/** Within each level the last rule matching both decides (none: ask); across levels the strictest. */
function decide(rules: readonly PermissionRule[], permission: string, pattern: string) {
  let decided: { action: PermissionAction; rule: PermissionRule | undefined } | undefined;
  for (const level of levels(rules)) {
    const rule = lastMatch(level, permission, pattern);
    const action = rule?.action ?? "ask";
    if (!decided || SEVERITY[action] > SEVERITY[decided.action]) decided = { action, rule };
  }
  return decided ?? { action: "ask" as const, rule: undefined };
}

/** The rule that decides `permission` for `pattern`, if any (see `decide`). */
export function matchingRule(rules: readonly PermissionRule[], permission: string, pattern: string): PermissionRule | undefined {
  return decide(rules, permission, pattern).rule;
}

/** What to do; with no matching rule at all, ask (never silently allow what nobody configured). */
export function evaluate(rules: readonly PermissionRule[], permission: string, pattern: string): PermissionAction {
  return decide(rules, permission, pattern).action;
}

export interface PermissionDecision {
  action: PermissionAction;
  /** The pattern that decided it (the first denied, else the first asked), for messages and events. */
  pattern: string | undefined;
  rule: PermissionRule | undefined;
}

/**
 * A request names several patterns (an edit touching two files); the strictest answer wins: any
 * deny denies, else any ask asks. A request with no patterns is evaluated for `*`. `approvals` are
 * "always" answers: they settle what would otherwise be asked, at any level, but never lift a deny;
 * each settles exactly the text it was given for (see `isApproved`).
 */
export function evaluateRequest(
  rules: readonly PermissionRule[],
  request: { permission: string; patterns: readonly string[] },
  approvals: readonly ApprovalRule[] = [],
): PermissionDecision {
  const patterns = request.patterns.length > 0 ? request.patterns : ["*"];
  let decision: PermissionDecision = { action: "allow", pattern: undefined, rule: undefined };
  for (const pattern of patterns) {
    const decided = decide(rules, request.permission, pattern);
    const approved = decided.action === "ask" && isApproved(approvals, request.permission, pattern);
    const { action, rule } = approved ? { action: "allow" as const, rule: undefined } : decided;
    if (SEVERITY[action] > SEVERITY[decision.action]) decision = { action, pattern, rule };
  }
  return decision;
}

/**
 * The permission a tool asks under. write and edit share `edit` (as in OpenCode), so one rule
 * governs every tool that changes files; every other tool asks under its own name.
 */
export function toolPermission(toolName: string): string {
  return toolName === "write" || toolName === "edit" ? "edit" : toolName;
}

/**
 * Tools to leave out of the model's tool list: those whose permission is denied outright, i.e. at
 * some level the last rule for it has pattern `*` and action deny. A tool denied only for some patterns stays
 * listed; its calls for those patterns are denied when it asks.
 */
export function disabledTools(toolNames: readonly string[], rules: readonly PermissionRule[]): Set<string> {
  const disabled = new Set<string>();
  const byLevel = levels(rules);
  for (const name of toolNames) {
    const permission = toolPermission(name);
    const deniedAt = (level: readonly PermissionRule[]) => {
      const last = level.findLast((rule) => wildcardMatch(rule.permission, permission));
      return last?.pattern === "*" && last.action === "deny";
    };
    if (byLevel.some(deniedAt)) disabled.add(name);
  }
  return disabled;
}

/** A sub-trace's tool limits (its context's `allowed_tools` / `denied_tools`, as clients send them). */
export interface TraceToolContext {
  /** Only these tools; null or absent means no restriction. */
  allowedTools?: readonly string[] | null;
  deniedTools?: readonly string[];
  /** The rules of the agent that started the trace, which cap the trace's own (`capToCaller`). */
  callerPermission?: readonly PermissionRule[];
}

/**
 * Trace context as rules, merged last. `allowedTools` is a whitelist: it denies every other tool of
 * `toolNames` rather than allowing the listed ones, so it can narrow what an agent may do but never
 * widen it (an explore sub-trace allowed `bash` still cannot run bash). Rules name permissions, so
 * allowing either of write/edit keeps both, and denying either denies both.
 */
export function traceContextRules(context: TraceToolContext | undefined, toolNames: readonly string[]): PermissionRule[] {
  if (!context) return [];
  const rules: PermissionRule[] = [];
  const denied = new Set<string>();
  if (context.allowedTools) {
    const allowed = new Set(context.allowedTools.map(toolPermission));
    for (const name of toolNames) {
      const permission = toolPermission(name);
      if (!allowed.has(permission)) denied.add(permission);
    }
  }
  for (const name of context.deniedTools ?? []) denied.add(toolPermission(name));
  for (const permission of denied) rules.push({ permission, pattern: "*", action: "deny" });
  return rules;
}
