import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { text, toolCall } from "@arbor/testkit";
import { describe, expect, it } from "vitest";
import { hasGit } from "../../../test-setup/git.js";
import { screenshot } from "./helpers/browser.js";
import { browserSuite } from "./helpers/suite.js";

const web = browserSuite();

describe.skipIf(!hasGit)("revert and unrevert from the tree (git on the PATH)", () => {
  it("puts the files back as they were before an entry, then undoes that", async () => {
    const server = await web.server({
      runtime: { snapshots: true },
      script: [
        [toolCall("write", { path: "notes.txt", content: "rewritten by the agent\n" })],
        [text("The notes are rewritten.")],
      ],
    });
    const notes = join(server.cwd, "notes.txt");
    writeFileSync(notes, "the user's notes\n");
    const page = await web.page({ width: 1440, height: 900 });
    await page.goto(server.url);
    await page.getByLabel("Message").fill("Rewrite the notes.");
    await page.getByLabel("Message").press("Enter");
    await page.waitForURL(/\/sessions\/[^/]+$/);
    await page.getByText("The notes are rewritten.").waitFor();
    await page.locator(".live-run").waitFor({ state: "detached" });
    expect(readFileSync(notes, "utf8")).toBe("rewritten by the agent\n");
    // The step's recorded change shows in the chat.
    expect(await page.locator(".msg-patch summary").textContent()).toContain("notes.txt (modified)");

    await page.getByRole("link", { name: "Tree" }).click();
    const user = page.locator(".tree-row.kind-message", { hasText: "Rewrite the notes." });
    await user.click();
    await page.getByRole("button", { name: "Revert files to before this" }).click();
    const notice = page.getByTestId("tree-notice");
    await notice.waitFor();
    expect(await notice.textContent()).toMatch(/^Reverted to before \S+: 1 file restored\.$/);
    expect(readFileSync(notes, "utf8")).toBe("the user's notes\n");
    await page.locator(".tree-row", { hasText: /^.*Files reverted to before \S+$/ }).waitFor();
    expect(await page.locator(".tree-row", { hasText: "Files changed: notes.txt" }).count()).toBe(1);
    await screenshot(page, "tree-reverted");

    await page.getByRole("button", { name: "Undo revert" }).click();
    await expect.poll(() => notice.textContent()).toBe("Revert undone: 1 file restored.");
    expect(readFileSync(notes, "utf8")).toBe("rewritten by the agent\n");
    await page.getByRole("button", { name: "Undo revert" }).waitFor({ state: "detached" });
    expect(existsSync(notes)).toBe(true);
    await page.close();
  });
});
