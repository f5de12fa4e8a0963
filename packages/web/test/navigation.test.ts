import { text } from "@arbor/testkit";
import { beforeAll, describe, expect, it } from "vitest";
import { screenshot } from "./helpers/browser.js";
import { type RichSession, writeRichSession } from "./helpers/rich-session.js";
import type { WebServer } from "./helpers/server.js";
import { browserSuite } from "./helpers/suite.js";

const web = browserSuite();
let server: WebServer;
let rich: RichSession;
beforeAll(async () => {
  server = await web.fileServer({ script: [[text("Two lines received.")]] });
  rich = await writeRichSession(server.store, { cwd: "/projects/alpha" });
});

describe("sub-traces", () => {
  it("are folded in the order they ran, open from a sub-agent result, and lead back to their parent", async () => {
    const page = await web.page({ width: 1440, height: 900 });
    await page.goto(`${server.url}/sessions/${rich.parent.id}`);
    const parentItem = page.locator(`.session-item[data-session-id="${rich.parent.id}"]`);
    const twisty = parentItem.locator(".twisty").first();
    expect(await twisty.getAttribute("aria-expanded")).toBe("false");
    expect(await parentItem.locator(".session-item").count()).toBe(0);
    await twisty.click();
    expect(await parentItem.locator(".session-item .session-title").allTextContents()).toEqual([
      "Step 1: find the callers",
      "Step 2: check the tests",
    ]);
    await twisty.click();

    await page.getByRole("region", { name: "Sub-agent result" }).getByRole("link", { name: "Open sub-trace" }).click();
    await page.waitForURL(`**/sessions/${rich.subs[0]?.id}`);
    const crumb = page.getByTestId("breadcrumb");
    expect(await crumb.textContent()).toBe("↑ Parent trace › explore sub-trace: Step 1: find the callers");
    // The sidebar opens the parent to show where the sub-trace sits.
    await page.locator(`.session-item[data-session-id="${rich.subs[0]?.id}"] .session-row.selected`).waitFor();
    await screenshot(page, "nav-sub-trace");
    await crumb.getByRole("link", { name: "↑ Parent trace" }).click();
    await page.waitForURL(`**/sessions/${rich.parent.id}`);
    await page.close();
  });
});

describe("where a session comes from", () => {
  it("marks a fork and an imported copy", async () => {
    const snapshot = (await (await server.api(`/api/sessions/${rich.parent.id}`)).json()) as {
      session: { leafEntryId: string };
    };
    const fork = (await (
      await server.api(`/api/sessions/${rich.parent.id}/fork`, { json: { entry_id: snapshot.session.leafEntryId } })
    ).json()) as { id: string };
    const exported = await server.store.exportSession(rich.parent.id);
    const imported = await server.store.importSession({
      ...exported,
      session: { ...exported.session, id: "imported-copy", importedFrom: { agent: "claude-code", sourceId: "abc123" } },
    });
    const page = await web.page();
    await page.goto(`${server.url}/sessions/${fork.id}`);
    expect(await page.getByTestId("fork-of").textContent()).toBe(`Fork of ${rich.parent.id}`);
    await screenshot(page, "nav-fork-of");
    await page.goto(`${server.url}/sessions/${imported.id}`);
    expect(await page.getByTestId("imported-from").textContent()).toBe("Imported from claude-code (abc123)");
    expect(await page.getByTestId("fork-of").count()).toBe(0);
    await page.close();
  });
});

describe("an unknown session", () => {
  it("is a 404 page: no tabs, no composer, no socket", async () => {
    const page = await web.page();
    const sockets: string[] = [];
    const streams: string[] = [];
    page.on("websocket", (ws) => sockets.push(ws.url()));
    page.on("request", (r) => {
      // The session lookup and the chat's permissions check are the only calls: no run stream.
      const url = r.url();
      if (
        url.includes("/api/") &&
        url.includes("nosuchsession") &&
        !url.endsWith("/api/sessions/nosuchsession") &&
        !url.includes("/api/permissions?")
      ) {
        streams.push(r.url());
      }
    });
    await page.goto(`${server.url}/sessions/nosuchsession`);
    await page.getByRole("heading", { name: "Session not found" }).waitFor();
    expect(await page.getByRole("navigation", { name: "Session views" }).count()).toBe(0);
    expect(await page.getByRole("form", { name: "Composer" }).count()).toBe(0);
    await screenshot(page, "nav-404");
    await page.getByRole("link", { name: "Start a new session" }).click();
    await page.getByRole("form", { name: "Composer" }).waitFor();
    expect(sockets).toEqual([]);
    expect(streams).toEqual([]);
    await page.close();
  });
});

describe("the tree", () => {
  it("says what a goal call changed", async () => {
    const page = await web.page();
    await page.goto(`${server.url}/sessions/${rich.parent.id}/tree`);
    await page.getByTestId("tree-stats").waitFor();
    const row = page.locator(".tree-row", { hasText: "Goals: added “Read the parser”, “Fix the bug”; focus → 1" });
    expect(await row.count()).toBe(1);
    // Row previews drop Markdown's marks.
    expect(await page.locator(".tree-row", { hasText: "Parser fixed Bug: the counter" }).count()).toBe(1);
    await page.close();
  });
});

describe("the composer", () => {
  it("sends on Enter, keeps Shift+Enter for a new line, and shows the model and agents the server will use", async () => {
    const info = (await (await server.api("/api/info")).json()) as { default_model: string; agents: Array<{ name: string }> };
    expect(info.default_model).toBe("testkit/scripted");
    expect(info.agents.map((a) => a.name)).toEqual(["build", "plan"]);
    const page = await web.page();
    await page.goto(server.url);
    const composer = page.getByRole("form", { name: "Composer" });
    await expect.poll(() => composer.getByLabel("Model").getAttribute("placeholder")).toBe("testkit/scripted");
    expect(await composer.locator("datalist option").evaluateAll((os) => os.map((o) => o.getAttribute("value")))).toEqual([
      "build",
      "plan",
    ]);
    // An agent the server would refuse is caught here.
    await composer.getByLabel("Agent").fill("explore");
    await composer.getByRole("alert").waitFor();
    expect(await composer.getByRole("alert").textContent()).toContain("Agents you can run: build, plan.");
    expect(await composer.getByRole("button", { name: "Send" }).isDisabled()).toBe(true);
    await composer.getByLabel("Agent").fill("");

    const box = composer.getByLabel("Message");
    await box.click();
    await page.keyboard.type("line one");
    await page.keyboard.press("Shift+Enter");
    await page.keyboard.type("line two");
    expect(await box.inputValue()).toBe("line one\nline two");
    const request = page.waitForRequest((r) => r.url().endsWith("/api/chat"));
    await page.keyboard.press("Enter");
    expect((await request).postDataJSON()).toEqual({ message: "line one\nline two" });
    await page.getByText("Two lines received.").waitFor();
    await page.close();
  });

  it("shows the model a session keeps when its last answer names a known provider", async () => {
    const kept = await server.store.createSession({ title: "On another model" });
    await server.store.appendEntries(kept.id, [
      { type: "message", message: { role: "user", content: [{ type: "text", text: "Hi" }] } },
      {
        type: "message",
        message: { role: "assistant", content: [{ type: "text", text: "Hello" }], model: "openai/gpt-4o-mini" },
      },
    ]);
    const page = await web.page();
    await page.goto(`${server.url}/sessions/${kept.id}`);
    const model = page.getByRole("form", { name: "Composer" }).getByLabel("Model");
    await expect.poll(() => model.getAttribute("placeholder")).toBe("openai/gpt-4o-mini");
    expect(await model.getAttribute("title")).toBe("Empty: this session's model, openai/gpt-4o-mini");
    // The rich session's answers name no known provider, so a run there gets the server's default.
    await page.goto(`${server.url}/sessions/${rich.parent.id}`);
    await expect.poll(() => model.getAttribute("placeholder")).toBe("testkit/scripted");
    await page.close();
  });
});

describe("layout", () => {
  for (const [width, height] of [
    [390, 844],
    [2560, 1440],
  ] as const) {
    it(`works at ${width} px wide`, async () => {
      const page = await web.page({ width, height });
      await page.goto(`${server.url}/sessions/${rich.parent.id}`);
      await page.locator(".msg-assistant .markdown h1").waitFor();
      expect(await page.evaluate("document.documentElement.scrollWidth")).toBeLessThanOrEqual(width);
      const log = await page.getByRole("log", { name: "Conversation" }).boundingBox();
      expect(log?.width).toBeGreaterThan(width * 0.8);
      expect(await page.getByRole("form", { name: "Composer" }).isVisible()).toBe(true);
      await screenshot(page, `layout-${width}`);
      for (const tab of ["tree", "steps"]) {
        await page.getByRole("link", { name: tab === "tree" ? "Tree" : "Steps" }).click();
        await page.waitForURL(`**/${tab}`);
        await page
          .locator(tab === "tree" ? ".tree-row" : ".message-trace")
          .first()
          .waitFor();
        expect(await page.evaluate("document.documentElement.scrollWidth")).toBeLessThanOrEqual(width);
        await screenshot(page, `layout-${width}-${tab}`);
      }
      await page.close();
    });
  }
});

describe("the sessions list", () => {
  it("groups sessions by project and scrolls to the open one", async () => {
    const beta = await server.store.createSession({ title: "Beta work", cwd: "/projects/beta" });
    for (let i = 0; i < 40; i++) await server.store.createSession({ title: `Later session ${i}`, cwd: "/projects/beta" });
    const page = await web.page({ width: 1280, height: 600 });
    await page.goto(`${server.url}/sessions/${rich.parent.id}`);
    const alpha = page.locator('.project-group[data-project="/projects/alpha"]');
    expect(await alpha.locator(".project-name").textContent()).toBe("alpha");
    expect(await alpha.locator(`.session-item[data-session-id="${rich.parent.id}"]`).count()).toBe(1);
    const betaGroup = page.locator('.project-group[data-project="/projects/beta"]');
    expect(await betaGroup.locator(`.session-item[data-session-id="${beta.id}"]`).count()).toBe(1);
    // The open session is far down the list (41 newer sessions above it), yet in view.
    const row = page.locator(`.session-item[data-session-id="${rich.parent.id}"] .session-row`).first();
    await row.waitFor();
    await expect
      .poll(() =>
        row.evaluate((el) => {
          const r = el.getBoundingClientRect();
          return r.top >= 0 && r.bottom <= el.ownerDocument.documentElement.clientHeight + 1; // sub-pixel rounding at the edge
        }),
      )
      .toBe(true);
    await screenshot(page, "sessions-by-project");

    // Picking a project asks the server for that workspace's sessions only.
    const listed = page.waitForRequest((r) => r.url().includes("/api/sessions?") && r.url().includes("cwd="));
    await page.getByRole("combobox", { name: "Project", exact: true }).selectOption("/projects/alpha");
    expect(new URL((await listed).url()).searchParams.get("cwd")).toBe("/projects/alpha");
    await expect.poll(() => page.locator(".session-tree > .session-item").count()).toBeGreaterThan(0);
    await expect.poll(() => betaGroup.count()).toBe(0);
    expect(await page.locator(`.session-item[data-session-id="${rich.parent.id}"]`).count()).toBe(1);
    await page.close();
  });
});
