import type { Entry, RunEvent } from "@arbor/core";
import { text, toolCall } from "@arbor/testkit";
import { describe, expect, it } from "vitest";
import { setupCliE2e } from "./helpers/e2e.js";
import { snapshotOf } from "./helpers/session.js";

/** `arbor sessions replay` end to end: the CLI, the fake OpenAI-compatible server, a temporary ARBOR_HOME. */

const e2e = setupCliE2e("arbor-replay-e2e-");

const goalInputs = (entries: readonly Entry[]) =>
  entries.flatMap((e) =>
    e.type === "message" && e.message.role === "assistant"
      ? e.message.content.flatMap((p) => (p.type === "tool-call" && p.toolName === "goal" ? [p.input] : []))
      : [],
  );

describe("arbor sessions replay", () => {
  // Five CLI commands, three of them runs: given room on a loaded machine.
  it("edits a past goal call, runs on from a new branch and leaves the old one beside it", { timeout: 120_000 }, async () => {
    const baseURL = await e2e.fake([
      [toolCall("goal", { add: "Approach A, Test" }, { id: "plan" })],
      [text("went with A")],
      // The replayed run: the runtime redoes the edited call, then the model goes on.
      [text("went with B")],
    ]);
    const first = await e2e.cli(e2e.runArgs(baseURL, "build it"));
    expect(first.code, first.stderr).toBe(0);
    const sessionId = (JSON.parse(first.stdout.trim().split("\n")[0]!) as RunEvent).session_id;
    const before = await snapshotOf(e2e.home, sessionId);
    const call = before.entries.find((e) => goalInputs([e]).length > 0)!;

    // Bad arguments are refused before anything is written: the goal tool's schema, then the JSON itself.
    const bogus = await e2e.cli(["sessions", "replay", sessionId, call.id, "--args", '{"bogus":1}', ...e2e.modelArgs(baseURL)]);
    expect(bogus.code).toBe(2);
    expect(bogus.stderr + bogus.stdout).toMatch(/new goal arguments are not valid/);
    const notJson = await e2e.cli(["sessions", "replay", sessionId, call.id, "--args", "{add:", ...e2e.modelArgs(baseURL)]);
    expect(notJson.code).toBe(2);
    expect(notJson.stderr).toMatch(/--args is not JSON/);
    const notGoal = await e2e.cli([
      "sessions",
      "replay",
      sessionId,
      before.entries[0]!.id,
      "--args",
      "{}",
      ...e2e.modelArgs(baseURL),
    ]);
    expect(notGoal.code).not.toBe(0);
    expect(notGoal.stderr + notGoal.stdout).toMatch(/no assistant message/);
    expect((await snapshotOf(e2e.home, sessionId)).entries.map((e) => e.id)).toEqual(before.entries.map((e) => e.id));

    // A prefix of the message's id, as 'sessions tree' shows it; the one goal call is found without --call.
    const replayed = await e2e.cli([
      "sessions",
      "replay",
      sessionId.slice(0, 8),
      call.id.slice(0, 8),
      "--args",
      '{"add":"Approach B, Test"}',
      "--json",
      ...e2e.modelArgs(baseURL),
    ]);
    expect(replayed.stderr).toBe("");
    expect(replayed.code).toBe(0);
    const events = replayed.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as RunEvent);
    expect(events.at(-1)?.type).toBe("done");
    expect(events.every((e) => e.session_id === sessionId)).toBe(true);

    const after = await snapshotOf(e2e.home, sessionId);
    const byId = new Map(after.entries.map((e) => [e.id, e]));
    const path = after.activePath.map((id) => byId.get(id)!);
    // The session follows the new branch: it shares the user message, redoes the call edited, and ends in B.
    expect(path[0]!.id).toBe(before.activePath[0]);
    expect(path[1]!.parentId).toBe(path[0]!.id);
    expect(path[1]!.id).not.toBe(call.id);
    expect(goalInputs(path)).toEqual([{ add: "Approach B, Test" }]);
    const leaf = path.at(-1)!;
    expect(leaf.type === "message" && leaf.message.content[0]).toMatchObject({ type: "text", text: "went with B" });
    expect(after.session.leafEntryId).toBe(leaf.id);
    // The old branch stays in the tree.
    expect(byId.get(call.id)).toBeDefined();
    expect(after.childrenByParentId[path[0]!.id]).toHaveLength(2);
    // The model saw the edited plan, not the first one.
    const lastRequest = JSON.stringify(e2e.server?.requests.at(-1)?.body);
    expect(lastRequest).toContain("Approach B");
  });
});
