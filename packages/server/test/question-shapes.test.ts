import type { RunEventOf } from "@arbor/core/wire";
import { describe, expect, it } from "vitest";
import { AcpRunWire } from "../src/protocols/acp/updates.js";
import { interruptIdOf, parseInterruptId } from "../src/protocols/ag-ui/events.js";
import { mcpProgressWire } from "../src/protocols/mcp/run-tool.js";
import { ResponseWire } from "../src/protocols/open-responses/response-wire.js";
import { askOf } from "../src/protocols/shared/asks.js";
import { RunEventChunker } from "../src/protocols/ui-chat/ui-chunks.js";

/**
 * The agent's question on each protocol's wire: where the protocol has no shape for the answer it
 * says the question and where to answer it (and the run waits); where it has one, the ask carries it.
 */

const event = (over: Partial<RunEventOf<"question_request">> = {}): RunEventOf<"question_request"> => ({
  type: "question_request",
  session_id: "s1",
  id: "question_abc",
  question: "Which targets?",
  options: [{ label: "linux" }, { label: "mac" }],
  multiple: true,
  custom: true,
  call_id: "q1",
  ...over,
});
const wired = (e: RunEventOf<"question_request">) => ({ event: e, id: 7, json: JSON.stringify(e) });
const WHERE = /arbor approve question_abc --answer .*POST \/api\/asks\/question_abc/;

describe("a question on every wire", () => {
  it("is an ask of kind question, interrupt ids included", () => {
    const ask = askOf(event());
    expect(ask).toMatchObject({ kind: "question", id: "question_abc" });
    expect(parseInterruptId(interruptIdOf(ask!, 7))).toEqual({ kind: "question", id: "question_abc", after: 7 });
  });

  it("UI chat: a data-question part and the words saying where to answer", () => {
    const chunker = new RunEventChunker("s1");
    const chunks = chunker.ask(askOf(event())!, wired(event()));
    expect(chunks).toContainEqual(expect.objectContaining({ type: "data-question", id: "question_abc" }));
    const said = chunks.flatMap((c) => (c.type === "text-delta" ? [c.delta] : [])).join("");
    expect(said).toMatch(WHERE);
    expect(said).toContain("Which targets? (linux / mac; several may be chosen)");
  });

  it("Open Responses: no approval item (it takes only yes or no); the text says where, and the response ends", () => {
    const wire = new ResponseWire(
      {
        id: "resp_1",
        model: "m",
        createdAt: 0,
        instructions: null,
        tools: [],
        metadata: {},
        previousResponseId: null,
        store: true,
      },
      new Set(),
    );
    const out = wire.ask(askOf(event())!);
    expect(wire.asks).toEqual([]);
    expect(JSON.stringify(out)).not.toContain("mcp_approval_request");
    expect(out.flatMap((e) => (e.type === "response.output_text.delta" ? [String(e.delta)] : [])).join("")).toMatch(WHERE);
    expect(out.at(-1)).toMatchObject({ type: "response.completed" });
  });

  it("ACP: a single choice is a request_permission (no text); free text and several choices are said as text", () => {
    const wire = new AcpRunWire("/tmp");
    expect(wire.event(wired(event({ multiple: false })))).toEqual([]);
    const said = JSON.stringify(wire.event(wired(event())));
    expect(said).toContain("agent_message_chunk");
    expect(said).toMatch(/arbor approve question_abc --answer/);
    expect(JSON.stringify(wire.event(wired(event({ options: undefined, multiple: false }))))).toContain("agent_message_chunk");
  });

  it("MCP: progress names the tool that answers it", () => {
    expect(mcpProgressWire.ask(askOf(event())!, wired(event()))).toEqual([
      'waiting for an answer to the question "Which targets? (linux / mac; several may be chosen)": answer_question id=question_abc',
    ]);
  });
});
