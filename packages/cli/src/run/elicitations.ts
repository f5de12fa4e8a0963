import type { ElicitationAnswer, ElicitationHandler, PendingElicitation } from "@arbor/core/session";
import { type Io, writeLines } from "../io.js";
import type { RunView } from "../render/live.js";
import { oneLine } from "../render/text.js";

const ANSWERS: Readonly<Record<string, ElicitationAnswer>> = {
  a: { action: "accept" },
  accept: { action: "accept" },
  y: { action: "accept" },
  yes: { action: "accept" },
  d: { action: "decline" },
  decline: { action: "decline" },
  n: { action: "decline" },
  no: { action: "decline" },
};

/** Unclear answers are asked again this many times, then the elicitation is declined. */
const MAX_TRIES = 3;

/** How to answer the elicitation from another terminal; `store` is ` --store <spec>` or empty. */
export function elicitationHint(e: PendingElicitation, store: string): string {
  const accept =
    e.mode === "url" ? `'arbor approve ${e.id}${store}'` : `'arbor approve ${e.id} --content <the fields as JSON>${store}'`;
  const what =
    e.mode === "url"
      ? `asks you to open ${e.url} (${oneLine(e.message)})`
      : `asks for ${Object.keys(e.requestedSchema.properties).join(", ") || "a form"} (${oneLine(e.message)})`;
  return `MCP server ${e.server} ${what}; the tool call waits. Accept with ${accept}, or decline with 'arbor approve ${e.id} --deny${store}'.`;
}

/** The URL question as the terminal asks it: the server, its message, the page, and how to answer. */
export function urlPrompt(e: Extract<PendingElicitation, { mode: "url" }>): string {
  return [
    `? MCP server ${e.server} asks you to open a page: ${oneLine(e.message)}`,
    `  ${e.url}`,
    "  What you enter there goes to the server, not to Arbor. [a]ccept (you open it) / [d]ecline: ",
  ].join("\n");
}

/**
 * Who answers MCP servers' elicitations in `arbor run`: a URL one is asked at the terminal (accept:
 * the person opens the page; decline), when stdin is one. A form, or any elicitation with nobody at
 * the terminal, is told on stderr with the `arbor approve` that answers it, and waits in the store:
 * the call goes on once it is answered from anywhere.
 */
export function createElicitationHandler(opts: { io: Io; view: RunView; storeArg: string }): ElicitationHandler {
  const { io, view } = opts;
  return async (pending, signal) => {
    const prompt = io.prompt;
    view.breakLine();
    if (pending.mode !== "url" || prompt === undefined) {
      writeLines(io.stderr, [elicitationHint(pending, opts.storeArg)]);
      return undefined;
    }
    for (let i = 0; i < MAX_TRIES; i++) {
      const typed = await prompt(urlPrompt(pending), signal);
      // End of input or the call gone: left to the store (another terminal, or it expires).
      if (typed === undefined || signal.aborted) return undefined;
      const answer = ANSWERS[typed.trim().toLowerCase()];
      if (answer !== undefined) return answer;
    }
    return { action: "decline" };
  };
}
