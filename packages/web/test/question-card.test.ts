import { scriptedModel, text, toolCall } from "@arbor/testkit";
import { describe, expect, it } from "vitest";
import { seriousViolations } from "./helpers/axe.js";
import { screenshot } from "./helpers/browser.js";
import { browserSuite } from "./helpers/suite.js";

const web = browserSuite();

describe("the agent's question in the inspector", () => {
  for (const [width, height] of [
    [1440, 900],
    [390, 844],
  ] as const) {
    it(`shows the choices, sends the one picked, and the run goes on with it (${width} px)`, async () => {
      const model = scriptedModel([
        [
          toolCall("question", {
            question: "Which store should the app use?",
            header: "Store",
            options: [
              { label: "SQLite", description: "one file, no server" },
              { label: "PostgreSQL", description: "a server" },
            ],
          }),
        ],
        [text("SQLite it is.")],
      ]);
      const server = await web.server({ model });
      const page = await web.page({ width, height });
      await page.goto(server.url);
      await page.getByLabel("Message").fill("Set up the storage.");
      await page.getByRole("button", { name: "Send" }).click();
      const card = page.getByRole("region", { name: "Question: Which store should the app use?" });
      await card.waitFor();
      expect(await seriousViolations(page)).toEqual([]);
      await screenshot(page, `question-${width}`);
      // Nothing chosen yet: nothing to send.
      expect(await card.getByRole("button", { name: "Answer" }).isDisabled()).toBe(true);
      await card.getByRole("radio", { name: /SQLite/ }).check();
      await card.getByRole("button", { name: "Answer" }).click();
      // The run goes on with the answer (the card gives way to the session's history when it ends).
      await page.getByText("SQLite it is.").first().waitFor();
      // The model read the answer as the tool's result.
      expect(JSON.stringify(model.calls[1]?.prompt)).toContain(
        'The user answered the question \\"Which store should the app use?\\": \\"SQLite\\"',
      );
      const asks = await server.store.listAsks({});
      expect(asks.map((a) => [a.kind, a.answer?.value])).toEqual([["question", { answers: ["SQLite"] }]]);
    });
  }
});
