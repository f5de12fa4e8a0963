import { join } from "node:path";
import { text, toolCall } from "@arbor/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { arbor } from "./helpers/cli.js";
import { setupCliE2e } from "./helpers/e2e.js";
import { FaultRig, holdingPipe, jsonLines } from "./helpers/fault.js";

/**
 * Steering from another terminal: `arbor run --session <id> "…"` while a first `arbor run` drives
 * the session hands the message to that run, whose next model request carries it.
 */

const e2e = setupCliE2e("arbor-steer-cli-");
const rig = new FaultRig(() => e2e.workspace);
afterEach(() => rig.cleanup());

interface ChatBody {
  messages: Array<{ role: string; content: unknown }>;
}
const contentText = (content: unknown) =>
  typeof content === "string" ? content : (content as Array<{ text?: string }>).map((p) => p.text ?? "").join("");

describe("arbor run --session on a session another process runs", () => {
  it("steers that run: its next model request carries the message after the tool result", async () => {
    const home = join(e2e.dir, "home-steer");
    // The first run's bash call blocks reading this pipe until the test writes to it.
    const hold = holdingPipe(e2e.workspace);
    const baseURL = await rig.fakeServer([
      [toolCall("bash", { command: `read line < ${hold.path}; echo "got $line"`, description: "wait for the test" })],
      [text("switched to blue")],
    ]);
    const driver = rig.start(["run", "--json", "--yes", "paint it red", ...rig.modelArgs(baseURL)], home);
    await driver.waitForStdout(/"type":"tool_start"/);
    const sessionId = (jsonLines(driver.stdout())[0] as { session_id: string }).session_id;

    const steer = await arbor(["run", "--json", "--session", sessionId, "Use blue instead.", ...rig.modelArgs(baseURL)], {
      home,
    });
    expect(steer.code, steer.stderr).toBe(0);
    expect(JSON.parse(steer.stdout)).toMatchObject({ type: "steered", session_id: sessionId });
    // Steering made no model call of its own.
    expect(rig.chatRequests()).toHaveLength(1);

    await hold.send("go");
    const done = await driver.result;
    expect(done.code, done.stderr).toBe(0);
    const requests = rig.chatRequests() as ChatBody[];
    expect(requests).toHaveLength(2);
    const messages = requests[1]!.messages;
    const last = messages.at(-1)!;
    expect(last.role).toBe("user");
    expect(contentText(last.content)).toContain("the user sent the following message:\nUse blue instead.\n");
    expect(messages.at(-2)?.role).toBe("tool");
    expect(jsonLines(done.stdout).at(-1)?.type).toBe("done");
  });
});
