import { oneLine } from "../render/text.js";
import { shellWord } from "./shell.js";

/**
 * A question the run stopped on because nobody could answer it (stdin is not a terminal and there
 * was no --yes). The run is stopped rather than told "rejected": the model must not read a refusal
 * nobody gave, and the session stays as it was so the question can be answered later.
 */
export type Unanswered =
  | { kind: "plan"; planId: string; title: string }
  | { kind: "permission"; sessionId: string; agent: string; permission: string; patterns: readonly string[] }
  | { kind: "question"; id: string; sessionId: string; question: string };

/** The error code of a run stopped on an unanswered question; its exit code is EXIT_NEEDS_ANSWER. */
export const NEEDS_ANSWER = "needs_answer";

/** What to do about it, naming the commands; `store` is ` --store <spec>` or empty. */
export function unansweredMessage(u: Unanswered, store: string): string {
  switch (u.kind) {
    case "plan":
      return `Plan "${oneLine(u.title)}" waits for approval and there is no terminal to ask (stdin is not one). Approve it with 'arbor approve ${u.planId}${store}' (or reject it with --reject), or rerun with --yes.`;
    case "question":
      return `The agent asks "${oneLine(u.question)}" and there is no terminal to ask (stdin is not one); the question waits in the store and the session is kept. Answer it with 'arbor approve ${u.id} --answer <text>${store}' (or dismiss it with --deny), then continue with 'arbor run --session ${u.sessionId}${store} "go on"'.`;
    case "permission": {
      const target = u.patterns.length > 0 ? u.patterns.join(", ") : "this request";
      const agent = u.agent === "build" ? "" : ` --agent ${u.agent}`;
      // One command per pattern: `--pattern` takes one value.
      const allow = (u.patterns.length > 0 ? u.patterns : ["*"])
        .map((p) => `'arbor approve ${u.sessionId} --permission ${u.permission} --pattern ${shellWord(p)}${agent}${store}'`)
        .join(" and ");
      return `The run needs permission ${u.permission} for ${target} and there is no terminal to ask (stdin is not one); it stopped before the tool ran, and the session is kept. Allow it with ${allow}, then continue with 'arbor run --session ${u.sessionId}${store} "go on"'; or rerun with --yes.`;
    }
  }
}
