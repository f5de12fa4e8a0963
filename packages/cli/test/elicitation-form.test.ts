import type { PendingElicitation } from "@arbor/core/session";
import { describe, expect, it } from "vitest";
import { createFormElicitationHandler, parseField } from "../src/run/elicitation-form.js";

type Form = Extract<PendingElicitation, { mode: "form" }>;

const form: Form = {
  id: "elic_1",
  sessionId: "s",
  server: "tickets",
  message: "Describe it",
  mode: "form",
  requestedSchema: {
    type: "object",
    properties: { title: { type: "string" }, count: { type: "integer", default: 1 } },
    required: ["title"],
  },
};

const silentView = { event() {}, answered() {}, breakLine() {}, retrying() {}, end() {} };

describe("an elicitation's fields typed at the keyboard", () => {
  it("reads each type of field, choices by number or by name, and refuses what does not fit", () => {
    expect(parseField({ type: "string", enum: ["low", "high"] }, "2")).toEqual({ value: "high" });
    expect(parseField({ type: "string", enum: ["low", "high"] }, "LOW")).toEqual({ value: "low" });
    expect(parseField({ type: "string", enum: ["low", "high"] }, "3")).toEqual({ error: "choose from 1 to 2" });
    expect(parseField({ type: "string", oneOf: [{ const: "h1", title: "Superman" } as { const: string }] }, "superman")).toEqual({
      value: "h1",
    });
    expect(parseField({ type: "array", items: { anyOf: [{ const: "a" }, { const: "b" }] } }, "2, a")).toEqual({
      value: ["b", "a"],
    });
    expect(parseField({ type: "integer" }, "2.5")).toEqual({ error: "type a whole number" });
    expect(parseField({ type: "number" }, "2.5")).toEqual({ value: 2.5 });
    expect(parseField({ type: "boolean" }, "no")).toEqual({ value: false });
    expect(parseField({ type: "boolean" }, "maybe")).toEqual({ error: "answer y or n" });
    expect(parseField({ type: "string" }, "  ")).toEqual({ value: undefined });
  });

  it("asks the form again when the answer is refused, and sends what the person typed", async () => {
    const typed = ["a", "first", "", "second", "7"];
    const sent: unknown[] = [];
    const said: string[] = [];
    const handler = createFormElicitationHandler({
      prompt: async () => typed.shift(),
      view: silentView,
      say: (line) => said.push(line),
      answer: async (id, allow, content) => {
        sent.push({ id, allow, content });
        if (sent.length === 1) throw Object.assign(new Error("The answer does not fit the form."), { code: "invalid_input" });
      },
    });
    await handler(form, new AbortController().signal);
    expect(sent).toEqual([
      { id: "elic_1", allow: true, content: { title: "first" } },
      { id: "elic_1", allow: true, content: { title: "second", count: 7 } },
    ]);
    expect(said).toEqual(["The answer does not fit the form."]);
  });

  it("declines, and leaves the ask to the store when the prompt closes", async () => {
    const sent: unknown[] = [];
    const answer = async (id: string, allow: boolean) => {
      sent.push({ id, allow });
    };
    const keys = ["d"];
    await createFormElicitationHandler({ prompt: async () => keys.shift(), view: silentView, say() {}, answer })(
      form,
      new AbortController().signal,
    );
    await createFormElicitationHandler({ prompt: async () => undefined, view: silentView, say() {}, answer })(
      form,
      new AbortController().signal,
    );
    expect(sent).toEqual([{ id: "elic_1", allow: false }]);
  });
});
