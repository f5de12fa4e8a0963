import type { CompiledRule } from "./rules.js";

const NONE: readonly string[] = [];

/**
 * Rules ready to scan text. Nearly every text matches none of them, and one pass of a pattern that
 * joins them all is several times faster than a pass per rule (it is run over every message a step
 * stores), so `any` answers "could any rule match?" first. Patterns with backreferences or named
 * groups cannot be joined (the group numbers would shift or clash): those are tested on their own.
 */
export interface RuleSet {
  readonly rules: readonly CompiledRule[];
  readonly any: readonly RegExp[];
}

const UNJOINABLE = /\\[1-9]|\\k<|\(\?</;

export function ruleSet(rules: readonly CompiledRule[]): RuleSet {
  const byFlags = new Map<string, string[]>();
  const alone: RegExp[] = [];
  for (const rule of rules) {
    if (UNJOINABLE.test(rule.pattern)) alone.push(rule.match);
    else byFlags.set(rule.match.flags, [...(byFlags.get(rule.match.flags) ?? []), `(?:${rule.pattern})`]);
  }
  const joined = [...byFlags].map(([flags, patterns]) => new RegExp(patterns.join("|"), flags));
  return { rules, any: [...joined, ...alone] };
}

function mayMatch(text: string, set: RuleSet): boolean {
  for (const pattern of set.any) if (pattern.test(text)) return true;
  return false;
}

/**
 * Text with every secret the rules find replaced by `[REDACTED:<rule id>]`, and the ids that matched.
 * Almost no text holds a secret: then the text comes back as it was after one joined test.
 */
export function redactText(text: string, set: RuleSet): { text: string; matched: readonly string[] } {
  if (!mayMatch(text, set)) return { text, matched: NONE };
  let out = text;
  const matched: string[] = [];
  for (const rule of set.rules) {
    if (!rule.match.test(out)) continue;
    out = out.replace(rule.every, `[REDACTED:${rule.id}]`);
    matched.push(rule.id);
  }
  return { text: out, matched };
}

/**
 * A JSON value with secrets redacted in every string inside it (keys are left as they are). Parts
 * without a secret are the same objects as before, so a clean message is not copied. `clean`: a
 * text already found to hold none, passed over.
 */
export function redactValue(value: unknown, set: RuleSet, matched: Set<string>, clean?: string): unknown {
  if (typeof value === "string") {
    // Every string of every message a step stores comes here; a clean one costs no result object.
    if (value === clean || !mayMatch(value, set)) return value;
    const result = redactText(value, set);
    for (const id of result.matched) matched.add(id);
    return result.text;
  }
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const next = redactValue(value[i], set, matched, clean);
      if (next === value[i]) continue;
      copy ??= value.slice();
      copy[i] = next;
    }
    return copy ?? value;
  }
  if (typeof value === "object" && value !== null) {
    let copy: Record<string, unknown> | undefined;
    // Own enumerable keys in order, as Object.entries gives them, without an array of pairs per object.
    const record = value as Record<string, unknown>;
    for (const key in record) {
      if (!Object.hasOwn(record, key)) continue;
      const item = record[key];
      const next = redactValue(item, set, matched, clean);
      if (next === item) continue;
      copy ??= { ...value };
      copy[key] = next;
    }
    return copy ?? value;
  }
  return value;
}

/** The injection rules whose markers appear in the text. */
export function injectionMarkers(text: string, set: RuleSet): CompiledRule[] {
  return mayMatch(text, set) ? set.rules.filter((rule) => rule.match.test(text)) : [];
}
