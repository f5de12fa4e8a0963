import { describe, expect, it } from "vitest";
import { ToolMessageSchema } from "../../src/model/message.js";
import { passesToolMessageSchema } from "../../src/model/tool-message-check.js";

const part = { type: "tool-result", toolCallId: "c1", toolName: "read", output: { type: "text", value: "ok" } };
const plain = { role: "tool", content: [part], description: "read", durationMs: 3 };

/** Each case: what the plain check says must agree with the schema whenever it says yes. */
const cases: Record<string, unknown> = {
  plain,
  "error result": {
    ...plain,
    content: [{ ...part, output: { type: "error-text", value: "no" } }],
    error: { code: "tool_error", message: "no" },
  },
  "loose extras kept": { ...plain, content: [{ ...part, title: "t", metadata: { a: 1 } }], extra: 1, permissionWaitMs: 5 },
  "empty call id": { ...plain, content: [{ ...part, toolCallId: "" }] },
  "output with an extra key": { ...plain, content: [{ ...part, output: { type: "text", value: "x", more: 1 } }] },
  "json output": { ...plain, content: [{ ...part, output: { type: "json", value: { a: 1 } } }] },
  "number output": { ...plain, content: [{ ...part, output: { type: "text", value: 5 } }] },
  "negative duration": { ...plain, durationMs: -1 },
  "infinite duration": { ...plain, durationMs: Number.POSITIVE_INFINITY },
  "NaN cost": { ...plain, cost: Number.NaN },
  "tokens (defaults filled)": { ...plain, tokens: { input: 1 } },
  attachments: { ...plain, content: [{ ...part, attachments: [] }] },
  "error without message": { ...plain, error: { code: "x" } },
  "error code a number": { ...plain, error: { code: 1, message: "m" } },
  "synthetic not boolean": { ...plain, synthetic: "yes" },
  "description not string": { ...plain, description: 1 },
  "assistant role": { ...plain, role: "assistant" },
  "content not array": { ...plain, content: part },
  "part not object": { ...plain, content: ["x"] },
  "no content": { role: "tool", content: [] },
};

describe("passesToolMessageSchema", () => {
  for (const [name, message] of Object.entries(cases)) {
    it(`agrees with the schema: ${name}`, () => {
      if (!passesToolMessageSchema(message)) return;
      const parsed = ToolMessageSchema.safeParse(message);
      expect(parsed.success).toBe(true);
      // What the schema gives back is what was given: skipping it stores the same entry.
      expect(parsed.data).toEqual(message);
    });
  }

  it("takes the loop's usual tool results and leaves the unusual ones to the schema", () => {
    expect(passesToolMessageSchema(cases.plain)).toBe(true);
    expect(passesToolMessageSchema(cases["error result"])).toBe(true);
    expect(passesToolMessageSchema(cases["loose extras kept"])).toBe(true);
    for (const name of ["output with an extra key", "json output", "tokens (defaults filled)", "attachments"]) {
      expect(passesToolMessageSchema(cases[name])).toBe(false);
    }
    for (const name of ["empty call id", "number output", "negative duration", "infinite duration", "NaN cost"]) {
      expect(ToolMessageSchema.safeParse(cases[name]).success).toBe(false);
      expect(passesToolMessageSchema(cases[name])).toBe(false);
    }
  });
});
