import { text, toolCall } from "@arbor/testkit";
import { describe, expect, it } from "vitest";
import { screenshot } from "./helpers/browser.js";
import { browserSuite } from "./helpers/suite.js";

const web = browserSuite();

/** The goal calls the session's active path holds now, as the store has them. */
async function activeGoalCalls(server: Awaited<ReturnType<typeof web.server>>, sessionId: string): Promise<unknown[]> {
  const path = await server.store.getActivePath(sessionId);
  return path.flatMap((e) =>
    e.type === "message" && e.message.role === "assistant"
      ? e.message.content.flatMap((p) => (p.type === "tool-call" && p.toolName === "goal" ? [p.input] : []))
      : [],
  );
}

describe("edit and replay a past goal call from the inspector", () => {
  it("from the chat and from the tree: a new branch with the edited call, followed in the chat", async () => {
    const server = await web.server({
      script: [
        [toolCall("goal", { add: "Approach A, Test" }, { id: "plan" })],
        [text("went with A")],
        // Each replay: the runtime redoes the edited call, then the model goes on.
        [text("went with B")],
        [text("went with C")],
      ],
    });
    const page = await web.page({ width: 1440, height: 900 });
    await page.goto(server.url);
    await page.getByLabel("Message").fill("build it");
    await page.getByLabel("Message").press("Enter");
    await page.waitForURL(/\/sessions\/[^/]+$/);
    const sessionId = decodeURIComponent(/\/sessions\/([^/]+)$/.exec(page.url())![1]!);
    await page.getByText("went with A").waitFor();
    await page.locator(".live-run").waitFor({ state: "detached" });

    // The chat: the button sits on the goal call's card.
    const card = page.getByRole("region", { name: "Tool call goal" });
    await card.getByRole("button", { name: "Edit & replay" }).click();
    const editor = page.getByRole("form", { name: "Edit goal call" });
    const args = editor.getByLabel("New goal arguments (JSON)");
    expect(JSON.parse(await args.inputValue())).toEqual({ add: "Approach A, Test" });
    // Text that is not a JSON object is refused in the page, and nothing is sent.
    await args.fill("{add:");
    await editor.getByRole("button", { name: "Replay from here" }).click();
    await editor
      .getByRole("alert")
      .getByText(/^Not JSON/)
      .waitFor();
    expect(await activeGoalCalls(server, sessionId)).toEqual([{ add: "Approach A, Test" }]);

    await args.fill('{"add": "Approach B, Test"}');
    await editor.getByRole("button", { name: "Replay from here" }).click();
    await page.getByText("went with B").waitFor();
    await page.locator(".live-run").waitFor({ state: "detached" });
    // The chat follows the new branch: the old answer is off the active path, the edited plan on it.
    await expect.poll(() => page.getByText("went with A").count()).toBe(0);
    expect(await card.locator(".tool-args-preview").textContent()).toContain("Approach B");
    expect(await activeGoalCalls(server, sessionId)).toEqual([{ add: "Approach B, Test" }]);
    await screenshot(page, "replay-goal-chat");

    // The tree: the selected goal call's entry offers the same, and the chat follows the run.
    await page.getByRole("link", { name: "Tree" }).click();
    await page.locator(".tree-row.kind-message", { hasText: "Approach B" }).first().click();
    const details = page.getByRole("region", { name: "Selected entry" });
    await details.getByRole("button", { name: "Edit & replay" }).click();
    await details.getByLabel("New goal arguments (JSON)").fill('{"add": "Approach C"}');
    await screenshot(page, "replay-goal-tree");
    await details.getByRole("button", { name: "Replay from here" }).click();
    await page.waitForURL(/\/sessions\/[^/]+$/);
    await page.getByText("went with C").waitFor();
    await page.locator(".live-run").waitFor({ state: "detached" });
    expect(await activeGoalCalls(server, sessionId)).toEqual([{ add: "Approach C" }]);
    // Three branches now share the user message: the original and the two replays.
    const path = await server.store.getActivePath(sessionId);
    const siblings = (await server.store.listEntries(sessionId)).filter((e) => e.parentId === path[0]!.id);
    expect(siblings).toHaveLength(3);
    await page.close();
  });
});
