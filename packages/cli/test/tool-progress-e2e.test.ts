import { join } from "node:path";
import { type Entry, openStore } from "@arbor/core";
import { text, toolCall } from "@arbor/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { setupCliE2e } from "./helpers/e2e.js";
import { FaultRig, holdingPipe, jsonLines } from "./helpers/fault.js";

/** Live tool progress over the fake OpenAI server: `arbor run --json` prints bash's lines while it runs. */

const e2e = setupCliE2e("arbor-progress-cli-");
const rig = new FaultRig(() => e2e.workspace);
afterEach(() => rig.cleanup());

describe("bash output reaches the client as the command writes it", () => {
  it("a tool_progress event with the first line comes before the command finishes, and the result keeps the line count", async () => {
    const home = join(e2e.dir, "home");
    // The command prints a line, then blocks on this pipe until the test has seen that line.
    const hold = holdingPipe(e2e.workspace);
    const baseURL = await rig.fakeServer([
      [toolCall("bash", { command: `echo first line; read line < ${hold.path}; echo "then $line"` }, { id: "b1" })],
      [text("done")],
    ]);
    const run = rig.start(["run", "--json", "--yes", "print", ...rig.modelArgs(baseURL)], home);
    await run.waitForStdout(/"type":"tool_progress"[^\n]*first line/);
    const seen = jsonLines(run.stdout());
    expect(seen.some((e) => e.type === "tool_end")).toBe(false);
    expect(seen.find((e) => e.type === "tool_progress")).toMatchObject({
      call_id: "b1",
      tool: "bash",
      metadata: { output: "first line\n", lines: 1 },
    });

    await hold.send("second");
    const done = await run.result;
    expect(done.code, done.stderr).toBe(0);
    const events = jsonLines(done.stdout);
    expect(events.at(-1)?.type).toBe("done");
    const end = events.findIndex((e) => e.type === "tool_end");
    const lastProgress = events.findLastIndex((e) => e.type === "tool_progress");
    expect(lastProgress).toBeLessThan(end);

    // The result keeps the final metadata, the progress's line count included, not the live output.
    const sessionId = events[0]!.session_id as string;
    const store = await openStore(home);
    try {
      const path: Entry[] = await store.getActivePath(sessionId);
      const tool = path.find((e) => e.type === "message" && e.message.role === "tool");
      const part = tool?.type === "message" ? (tool.message.content[0] as { metadata?: Record<string, unknown> }) : undefined;
      expect(part?.metadata).toMatchObject({ exitCode: 0, signal: null, timedOut: false, lines: 2 });
    } finally {
      await store.close();
    }
  });
});
