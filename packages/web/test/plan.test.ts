import { resolveConfig } from "@arbor/core";
import { routedModel, scriptedModel, taskOf, text, toolCall } from "@arbor/testkit";
import { describe, expect, it } from "vitest";
import { screenshot } from "./helpers/browser.js";
import { browserSuite } from "./helpers/suite.js";

const web = browserSuite();

const STEP = /Now carry out step \d+: (.*)$/;

/** The main agent makes a two-step plan; each step's executor answers from its own script. */
const planModel = () =>
  routedModel({
    route: (prompt) => STEP.exec(taskOf(prompt))?.[1] ?? "main",
    models: {
      main: scriptedModel([[toolCall("plan_create", { title: "Check the repo", steps: ["Read the code", "Run the tests"] })]]),
      "Read the code": scriptedModel([[text("The code is fine.")]]),
      "Run the tests": scriptedModel([[text("All tests pass.")]]),
    },
  });

describe("plan approval", () => {
  it("shows a plan waiting for approval and approves it in place from the keyboard", async () => {
    const server = await web.server({
      model: planModel(),
      config: resolveConfig([{ source: "test", value: { plan: { requireApproval: true } } }]),
    });
    const page = await web.page();
    await page.goto(server.url);
    await page.getByLabel("Message").fill("check the repo");
    await page.getByRole("button", { name: "Send" }).click();

    const plan = page.getByRole("region", { name: "Plan Check the repo" });
    await plan.waitFor();
    expect(await plan.locator("li").allTextContents()).toEqual(["Read the code", "Run the tests"]);
    const pending = (await server.api("/api/plan/pending").then((r) => r.json())) as { plans: Array<{ plan_id: string }> };
    expect(pending.plans.length).toBe(1);
    await screenshot(page, "plan-approval");

    await plan.getByLabel("Reason (optional)").fill("Looks right");
    const request = page.waitForRequest((r) => r.url().endsWith("/api/plan/approve"));
    await page.keyboard.press("Tab");
    await page.keyboard.press("Enter");
    expect((await request).postDataJSON()).toEqual({ plan_id: pending.plans[0]?.plan_id, approved: true, reason: "Looks right" });
    // The run carries on through both steps.
    await page.getByText("All tests pass.").first().waitFor();
    expect(((await server.api("/api/plan/pending").then((r) => r.json())) as { plans: unknown[] }).plans).toEqual([]);
    await page.close();
  });
});
