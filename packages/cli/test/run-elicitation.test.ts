import type { PendingElicitation } from "@arbor/core/session";
import { describe, expect, it } from "vitest";
import type { Io } from "../src/io.js";
import { createJsonView } from "../src/render/live.js";
import { createElicitationHandler } from "../src/run/elicitations.js";
import { captureIo } from "./helpers/io.js";

/** How `arbor run` answers MCP servers' elicitations: a URL one at the terminal, anything else through `arbor approve`. */
const url: PendingElicitation = {
  id: "elic_1",
  sessionId: "s1",
  server: "accounts",
  mode: "url",
  message: "Sign in to Example.",
  url: "https://example.test/connect",
  elicitationId: "e1",
};
const form: PendingElicitation = {
  id: "elic_2",
  sessionId: "s1",
  server: "everything",
  mode: "form",
  message: "Your details?",
  requestedSchema: { type: "object", properties: { name: { type: "string" } } },
};
const signal = new AbortController().signal;

function asking(answers: (string | undefined)[]) {
  const questions: string[] = [];
  const io: Io & { err(): string } = {
    ...captureIo(),
    prompt: async (q) => {
      questions.push(q);
      return answers.shift();
    },
  };
  return { io, questions };
}

describe("MCP elicitations in arbor run", () => {
  it("asks the person at the terminal to open a URL until the answer is clear: accept or decline", async () => {
    const { io, questions } = asking(["later", "a", "no"]);
    const handler = createElicitationHandler({ io, view: createJsonView(io), storeArg: "" });
    expect(await handler(url, signal)).toEqual({ action: "accept" });
    expect(questions[0]).toContain("MCP server accounts asks you to open a page: Sign in to Example.");
    expect(questions[0]).toContain("https://example.test/connect");
    expect(questions).toHaveLength(2);
    expect(await handler(url, signal)).toEqual({ action: "decline" });
  });

  it("at end of input leaves the elicitation waiting in the store", async () => {
    const { io } = asking([undefined]);
    const handler = createElicitationHandler({ io, view: createJsonView(io), storeArg: "" });
    expect(await handler(url, signal)).toBeUndefined();
  });

  it("with nobody at the terminal, or for a form, says which arbor approve answers it and leaves it waiting", async () => {
    const io = captureIo();
    const handler = createElicitationHandler({ io, view: createJsonView(io), storeArg: " --store /s" });
    expect(await handler(url, signal)).toBeUndefined();
    expect(io.err()).toContain("MCP server accounts asks you to open https://example.test/connect (Sign in to Example.)");
    expect(io.err()).toContain("'arbor approve elic_1 --store /s'");
    expect(io.err()).toContain("'arbor approve elic_1 --deny --store /s'");
    const { io: terminal, questions } = asking(["a"]);
    const atTerminal = createElicitationHandler({ io: terminal, view: createJsonView(terminal), storeArg: "" });
    expect(await atTerminal(form, signal)).toBeUndefined();
    expect(questions).toEqual([]);
    expect(terminal.err()).toContain("MCP server everything asks for name (Your details?)");
  });
});
