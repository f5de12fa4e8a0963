import { scriptedModel, text, toolCall } from "@arbor/testkit";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { Message } from "../../src/model/message.js";
import type { AnyToolDefinition, ToolContext } from "../../src/tools/tool.js";
import { collect, harness } from "./harness.js";

/** A tool that keeps what each of its calls was given. */
function recorder(seen: Array<Pick<ToolContext, "messages" | "extra">>): AnyToolDefinition {
  return {
    name: "record_context",
    description: "Records its context.",
    input: z.object({ n: z.number() }),
    effects: "none",
    async execute(_input, ctx) {
      seen.push({ messages: ctx.messages, extra: ctx.extra });
      return { output: "recorded" };
    },
  };
}

const roles = (messages: readonly Message[] | undefined) => messages?.map((m) => m.role);

describe("what a tool is told of its run (ToolContext.messages, extra)", () => {
  it("gives every call the conversation the model saw and the run's extra", async () => {
    const seen: Array<Pick<ToolContext, "messages" | "extra">> = [];
    const model = scriptedModel([
      [toolCall("record_context", { n: 1 }, { id: "c1" })],
      [toolCall("record_context", { n: 2 }, { id: "c2" })],
      [text("Done.")],
    ]);
    const { runtime } = await harness({ model });
    const extra = { requestId: "req-7", tenant: { id: 3 } };
    const { result } = await collect(runtime.runs.run({ prompt: "Record twice.", tools: [recorder(seen)], extra }));
    expect(result.status).toBe("done");
    expect(seen).toHaveLength(2);
    expect(seen[0]!.extra).toBe(extra);
    expect(seen[1]!.extra).toBe(extra);
    // The first call sees the prompt and the call; the second also the first call's result.
    expect(roles(seen[0]!.messages)).toEqual(["user", "assistant"]);
    expect(roles(seen[1]!.messages)).toEqual(["user", "assistant", "tool", "assistant"]);
    const prompt = seen[0]!.messages![0]!;
    expect(prompt.role === "user" && prompt.content.some((p) => p.type === "text" && p.text.includes("Record twice."))).toBe(
      true,
    );
    const call = seen[1]!.messages!.at(-1)!;
    expect(call.role === "assistant" && call.content.some((p) => p.type === "tool-call" && p.toolCallId === "c2")).toBe(true);
    expect(Object.isFrozen(seen[0]!.messages)).toBe(true);
  });

  it("leaves extra out when the run was given none", async () => {
    const seen: Array<Pick<ToolContext, "messages" | "extra">> = [];
    const model = scriptedModel([[toolCall("record_context", { n: 1 }, { id: "c1" })], [text("Done.")]]);
    const { runtime } = await harness({ model });
    await collect(runtime.runs.run({ prompt: "Record.", tools: [recorder(seen)] }));
    expect(seen).toHaveLength(1);
    expect(seen[0]!.extra).toBeUndefined();
    expect(roles(seen[0]!.messages)).toEqual(["user", "assistant"]);
  });
});

describe("the ToolContext object", () => {
  it("lists its keys in the same order, and a copy or a wrapper of it still reads the conversation", async () => {
    const shapes: Array<{ keys: string[]; copied: unknown; wrapped: unknown; inherited: unknown }> = [];
    const probe: AnyToolDefinition = {
      name: "probe_context",
      description: "Looks at its context.",
      input: z.object({ n: z.number() }),
      async execute(_input, ctx) {
        shapes.push({
          keys: Object.keys(ctx),
          copied: roles({ ...ctx }.messages),
          wrapped: roles(new Proxy(ctx, {}).messages),
          inherited: roles((Object.create(ctx) as ToolContext).messages),
        });
        return { output: "looked" };
      },
    };
    const model = scriptedModel([
      [toolCall("probe_context", { n: 1 }, { id: "c1" })],
      [toolCall("probe_context", { n: 2 }, { id: "c2" })],
      [text("Done.")],
    ]);
    const { runtime } = await harness({ model });
    await collect(runtime.runs.run({ prompt: "Look twice.", tools: [probe], extra: { a: 1 } }));
    expect(shapes).toHaveLength(2);
    for (const [i, shape] of shapes.entries()) {
      expect(shape.keys).toEqual([
        "sessionId",
        "messageId",
        "callId",
        "agent",
        "cwd",
        "abort",
        "messages",
        "extra",
        "idempotencyKey",
        "checkpoint",
        "metadata",
        "run",
        "ask",
      ]);
      const seen = i === 0 ? ["user", "assistant"] : ["user", "assistant", "tool", "assistant"];
      expect(shape.copied).toEqual(seen);
      expect(shape.wrapped).toEqual(seen);
      expect(shape.inherited).toEqual(seen);
    }
  });
});
