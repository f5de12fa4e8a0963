import { compileRule, type SecurityRule } from "./rules.js";

/** Text with every secret the rules find replaced by `[REDACTED:<rule id>]`, and the ids that matched. */
export function redactText(text: string, rules: readonly SecurityRule[]): { text: string; matched: string[] } {
  const matched: string[] = [];
  let out = text;
  for (const rule of rules) {
    const next = out.replace(compileRule(rule), `[REDACTED:${rule.id}]`);
    if (next !== out) matched.push(rule.id);
    out = next;
  }
  return { text: out, matched };
}

/** A JSON value with secrets redacted in every string inside it (keys are left as they are). */
export function redactValue(value: unknown, rules: readonly SecurityRule[], matched: Set<string>): unknown {
  if (typeof value === "string") {
    const result = redactText(value, rules);
    for (const id of result.matched) matched.add(id);
    return result.text;
  }
  if (Array.isArray(value)) return value.map((item) => redactValue(item, rules, matched));
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, redactValue(item, rules, matched)]));
  }
  return value;
}

/** The ids of the injection rules whose markers appear in the text. */
export function injectionMarkers(text: string, rules: readonly SecurityRule[]): SecurityRule[] {
  return rules.filter((rule) => compileRule(rule).test(text));
}
