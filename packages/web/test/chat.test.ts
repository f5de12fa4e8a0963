import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { hang, reasoning, scriptedModel, text, toolCall } from "@arbor/testkit";
import { describe, expect, it } from "vitest";
import { screenshot } from "./helpers/browser.js";
import { browserSuite } from "./helpers/suite.js";

const web = browserSuite();

describe("chat", () => {
  it("streams reasoning, text and a tool call, and answers its permission ask in place", async () => {
    const server = await web.server({
      script: [
        [
          reasoning("The user wants the env file; reading it needs approval.", { chunks: 3 }),
          text("Reading the file now.", { chunks: 4 }),
          toolCall("read", { path: ".env" }),
        ],
        [text("The file sets DEBUG=1.", { chunks: 3 })],
      ],
    });
    writeFileSync(join(server.cwd, ".env"), "DEBUG=1\n");
    const page = await web.page();
    await page.goto(server.url);

    await page.getByLabel("Message").fill("What does .env set?");
    await page.getByLabel("Agent").fill("build");
    const request = page.waitForRequest((r) => r.url().endsWith("/api/chat"));
    await page.getByRole("button", { name: "Send" }).click();
    expect((await request).postDataJSON()).toEqual({ message: "What does .env set?", agent: "build" });

    // The first event names the session: the page moves to it while the run streams on.
    await page.waitForURL(/\/sessions\/[^/]+$/);
    const ask = page.getByRole("region", { name: /Permission request for read/ });
    await ask.waitFor();
    await page.getByText("Reading the file now.").waitFor();
    // Reasoning shows open while it streams and folds once the answer follows it.
    expect(await page.locator(".live-reasoning").textContent()).toBe("The user wants the env file; reading it needs approval.");
    const tool = page.getByRole("region", { name: "Tool call read" });
    expect(await tool.getByTestId("tool-status").textContent()).toBe("running");
    expect(await tool.locator(".tool-args-preview").textContent()).toContain(".env");
    await screenshot(page, "chat-permission-ask");

    await ask.getByRole("button", { name: "Allow once" }).click();
    await page.getByText("The file sets DEBUG=1.").waitFor();
    // Once the run is done the snapshot holds it: each part shows once, from history.
    await page.locator(".live-run").waitFor({ state: "detached" });
    expect(await page.getByText("The file sets DEBUG=1.").count()).toBe(1);
    const done = page.getByRole("region", { name: "Tool call read" });
    expect(await done.getByTestId("tool-status").textContent()).toBe("done");
    expect(await done.locator(".tool-duration").count()).toBe(1);

    // The output is folded until asked for, from the keyboard.
    const output = done.locator(".tool-output");
    expect(await output.isVisible()).toBe(false);
    await done.locator("summary").focus();
    await page.keyboard.press("Enter");
    await output.waitFor();
    expect(await output.textContent()).toContain("DEBUG=1");
    await page.getByText("Reasoning").first().click();
    await screenshot(page, "chat-done");

    // The new session is in the list.
    const sessionId = decodeURIComponent(new URL(page.url()).pathname.split("/")[2] as string);
    await page.locator(`.session-item[data-session-id="${sessionId}"]`).waitFor();
    await page.close();
  });

  it("aborts a run in progress", async () => {
    const server = await web.server({ script: [[text("Working on it"), hang()]] });
    const page = await web.page({ width: 1920, height: 1080 });
    await page.goto(server.url);
    await page.getByLabel("Message").fill("Take your time");
    await page.getByLabel("Message").press("Control+Enter");
    await page.getByText("Working on it").waitFor();
    await page.getByRole("button", { name: "Abort" }).click();
    await page.getByText("Aborted.").waitFor();
    await page.getByRole("button", { name: "Abort" }).waitFor({ state: "detached" });
    await screenshot(page, "chat-aborted-1920");
    await page.close();
  });

  it("resumes a run in progress when the session is opened after it started", async () => {
    const server = await web.server({ script: [[text("Halfway there"), hang()]] });
    // Another client starts the run and goes away; the run goes on.
    const res = await server.api("/api/chat", { json: { message: "Started elsewhere" } });
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    await reader.cancel();
    const sessionId = /"session_id":"([^"]+)"/.exec(first)?.[1];
    expect(sessionId).toBeDefined();
    const page = await web.page();
    await page.goto(`${server.url}/sessions/${sessionId}`);
    await page.getByText("Halfway there").waitFor();
    await page.getByRole("button", { name: "Abort" }).click();
    await page.getByText("Aborted.").waitFor();
    await page.close();
  });
});

describe("steering from the composer", () => {
  it("a message sent while the run streams is handed to it and reaches its next model call", async () => {
    const model = scriptedModel([
      [text("Reading it.", { chunks: 2 }), toolCall("read", { path: ".env" })],
      [text("Noted: blue.")],
    ]);
    const server = await web.server({ model });
    writeFileSync(join(server.cwd, ".env"), "DEBUG=1\n");
    const page = await web.page();
    await page.goto(server.url);
    await page.getByLabel("Message").fill("Read .env");
    await page.getByRole("button", { name: "Send" }).click();
    // The permission ask holds the run mid-step.
    const ask = page.getByRole("region", { name: /Permission request for read/ });
    await ask.waitFor();

    const composer = page.getByRole("form", { name: "Composer" });
    await composer.getByLabel("Message").fill("Also make it blue.");
    const steered = page.waitForResponse((r) => r.url().endsWith("/api/chat") && r.request().method() === "POST");
    await composer.getByRole("button", { name: "Steer" }).click();
    expect((await steered).status()).toBe(202);
    await ask.getByRole("button", { name: "Allow once" }).click();
    await page.getByText("Noted: blue.").waitFor();
    expect(JSON.stringify(model.calls[1]?.prompt.at(-1))).toContain("Also make it blue.");
  });
});

describe("a server with no model configured", () => {
  it("answers the first chat with one error that says so and how to set a model", async () => {
    const server = await web.server({ model: null });
    const page = await web.page({ width: 1440, height: 900 });
    await page.goto(server.url);
    const composer = page.getByRole("form", { name: "Composer" });
    // The placeholder says "server default" until GET /api/info answers: on a loaded machine that takes
    // longer than a poll's default second.
    await expect
      .poll(() => composer.getByLabel("Model").getAttribute("placeholder"), { timeout: 15_000 })
      .toBe("none configured: type provider/model");
    await composer.getByLabel("Message").fill("Hello?");
    await composer.getByRole("button", { name: "Send" }).click();
    await page.getByRole("alert").first().waitFor();
    await expect.poll(() => page.locator(".live-run").getAttribute("data-status"), { timeout: 15_000 }).toBe("error");
    // The run never began, so no session was made: the page stays where the message was sent,
    // with the message and one alert, instead of moving to a session page that cannot be found.
    expect(new URL(page.url()).pathname).toBe("/");
    expect(await page.getByText("Session not found").count()).toBe(0);
    expect(await page.locator(".live-run .msg-user").textContent()).toBe("Hello?");
    const alerts = await page.getByRole("alert").allTextContents();
    await screenshot(page, "chat-no-model");
    expect(alerts).toHaveLength(1);
    expect(alerts[0]).toContain("No model is configured");
    expect(alerts[0]).toMatch(/--model <provider>\/<model>.*ARBOR_MODEL.*arbor\.json/);
    await page.close();
  });
});
