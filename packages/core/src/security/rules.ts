import type { SecurityRule } from "../config/security-rule.js";

export { type SecurityRule, SecurityRuleSchema } from "../config/security-rule.js";

/** The structural checks, by id, with the reason a blocked call is given. */
export const STRUCTURAL_RULES = {
  "recursive-delete-root": "it deletes recursively from the file-system root, the home folder or a system folder",
  "download-to-shell": "it runs a script straight from the network (a download piped or substituted into a shell)",
  "write-outside-workspace": "it writes through a redirection (or tee) to a file outside the workspace",
  "kill-everything": "it signals every process the user may signal (kill -1)",
  "destroy-outside-workspace": "it destroys files outside the workspace beyond recovery (shred)",
} as const;

export type StructuralRuleId = keyof typeof STRUCTURAL_RULES;

const rule = (id: string, kind: SecurityRule["kind"], pattern: string, reason: string): SecurityRule => ({
  id,
  kind,
  pattern,
  flags: kind === "secret" ? "" : "i",
  reason,
});

export const BUILTIN_RULES: readonly SecurityRule[] = [
  rule(
    "fork-bomb",
    "command",
    String.raw`([^\s(){}|;&]+)\s*\(\)\s*\{\s*\1\s*\|\s*\1\s*&|\bfork\s*(\(\))?\s*while\s+fork\b|while\s*\(?\s*(true|1)\s*\)?\s*:\s*os\.fork\(\)`,
    "it is a fork bomb",
  ),
  rule(
    "disk-format",
    "command",
    String.raw`^\s*(sudo\s+)?(mkfs(\.\w+)?|mke2fs|mkswap|wipefs|fdisk|sfdisk|parted)\b`,
    "it formats or repartitions a disk",
  ),
  rule(
    "raw-disk-write",
    "command",
    String.raw`\b(dd|shred)\b.*\s(of=)?/dev/(sd|hd|nvme|vd|xvd|disk|mmcblk)`,
    "it overwrites a raw disk device",
  ),
  rule(
    "recursive-chmod-root",
    "command",
    String.raw`\b(chmod|chown|chgrp)\s+(-\S*R\S*|--recursive)\s+\S+\s+(/|~|\$HOME|/etc|/usr|/bin|/var)/?\s*$`,
    "it changes ownership or modes of a whole system tree",
  ),
  rule(
    "find-delete-root",
    "command",
    String.raw`\bfind\s+(/|~|\$HOME)/?\s.*(-delete|-exec\s+rm\b)`,
    "it deletes files found from the file-system root or the home folder",
  ),
  rule(
    "system-power",
    "command",
    String.raw`^\s*(sudo\s+)?(shutdown|reboot|halt|poweroff|init\s+[06])\b`,
    "it shuts the machine down",
  ),
  rule(
    "history-wipe",
    "command",
    String.raw`^\s*(sudo\s+)?(crontab\s+-r|history\s+-c)\b`,
    "it erases the user's crontab or shell history",
  ),
  rule(
    "reverse-shell",
    "command",
    String.raw`/dev/tcp/|\bnc\b.*\s-e\s|\bncat\b.*\s-e\s|\bsocat\b.*exec:`,
    "it opens a reverse shell",
  ),
  rule("openai-key", "secret", String.raw`\bsk-(proj-|ant-)?[A-Za-z0-9_-]{20,}`, "an API key"),
  rule("aws-access-key", "secret", String.raw`\b(AKIA|ASIA)[0-9A-Z]{16}\b`, "an AWS access key"),
  rule("github-token", "secret", String.raw`\b(gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{40,})`, "a GitHub token"),
  rule("slack-token", "secret", String.raw`\bxox[abprs]-[A-Za-z0-9-]{10,}`, "a Slack token"),
  rule("google-api-key", "secret", String.raw`\bAIza[0-9A-Za-z_-]{35}`, "a Google API key"),
  rule("stripe-key", "secret", String.raw`\b[sr]k_(live|test)_[0-9A-Za-z]{16,}`, "a Stripe key"),
  rule(
    "private-key",
    "secret",
    String.raw`-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(-----END [A-Z ]*PRIVATE KEY-----|$)`,
    "a private key",
  ),
  rule(
    "ignore-instructions",
    "injection",
    String.raw`\b(ignore|disregard|forget)\s+(all\s+|any\s+)?(the\s+|your\s+)?(previous|prior|above|earlier|preceding)\s+(instructions|prompts?|rules|directions)`,
    "asks to ignore earlier instructions",
  ),
  rule(
    "role-override",
    "injection",
    String.raw`\byou\s+are\s+now\s+(a|an|in|the)\b|\bnew\s+instructions\s*:|\bsystem\s+prompt\s*:`,
    "tries to give the model a new role or instructions",
  ),
  rule(
    "chat-markup",
    "injection",
    String.raw`<\|im_start\|>|<\|system\|>|\[INST\]|<\s*/?\s*system\s*>`,
    "contains chat-template markup",
  ),
];

/**
 * A rule with its pattern compiled once, when the gateway is built: the checks run on every tool
 * call and every stored message, so compiling there was a measurable share of a step. `match` has no
 * `g` flag, so `test` keeps no position between calls; `every` is for replacing all matches.
 */
export interface CompiledRule extends SecurityRule {
  readonly match: RegExp;
  readonly every: RegExp;
}

/** Compiles a rule's pattern; a bad pattern throws the engine's SyntaxError (the gateway names the rule). */
export function compileRule(rule: SecurityRule): CompiledRule {
  const flags = rule.flags.replace("g", "");
  return { ...rule, match: new RegExp(rule.pattern, flags), every: new RegExp(rule.pattern, `${flags}g`) };
}
