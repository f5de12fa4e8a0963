import { text, toolCall } from "@arbor/testkit";
import { describe, expect, it } from "vitest";
import { PROTOCOLS } from "../src/protocols/index.js";
import { PROTOCOL_CLIENTS } from "./helpers/protocol-clients.js";

/**
 * The same checks over every registered protocol, each through its own client library: a new
 * protocol registered in `src/protocols/index.ts` fails here until it has a client in
 * `helpers/protocol-clients.ts` and passes them.
 */
describe.each(PROTOCOLS.map((protocol) => [protocol.name, protocol] as const))("protocol %s", (name) => {
  const drivers = PROTOCOL_CLIENTS[name] ?? [];

  it("has a client in the conformance suite", () => {
    expect(drivers.length, `add ${name}'s client to test/helpers/protocol-clients.ts`).toBeGreaterThan(0);
  });

  describe.each(drivers.map((driver) => [driver.client, driver] as const))("through %s", (_client, driver) => {
    it("starts a run from its wire input and streams the answer text", async () => {
      const client = await driver.open([[text("The answer is 42.", { chunks: 3 })]], {});
      expect(await client.answer("What is the answer?")).toBe("The answer is 42.");
      expect(await client.sessions()).toBe(1);
    });

    it("surfaces a permission ask in its approval shape and takes the answer back", async () => {
      const client = await driver.open([[toolCall("read", { path: ".env" }, { id: "r1" })], [text("The key is set.")]], {
        ".env": "KEY=1\n",
      });
      const { asked, text: answer } = await client.approve("Is the key set?");
      // Each shape names what is asked for: the permission, or the tool call it guards.
      expect(asked).toMatch(/read/);
      expect(asked).toMatch(/\.env/);
      expect(answer).toBe("The key is set.");
    });

    // Where the protocol has a shape for an answer; the others say where to answer (see the README's Questions).
    it.skipIf(driver.answersQuestions !== true)(
      "surfaces the agent's question in its shape and takes the answer back",
      async () => {
        const question = { question: "Which database?", options: [{ label: "PostgreSQL" }, { label: "SQLite" }] };
        const client = await driver.open([[toolCall("question", question, { id: "q1" })], [text("Using SQLite.")]], {});
        const { asked, text: answer } = await client.question!("Set up the database.");
        expect(asked).toMatch(/Which database\?/);
        expect(asked).toMatch(/PostgreSQL/);
        expect(answer).toBe("Using SQLite.");
      },
    );

    it("reports bad input as a clear error, having written nothing", async () => {
      const client = await driver.open([[text("never")]], {});
      const error = await client.refuse();
      // A code the client can act on, and a sentence saying what was wrong.
      expect(error).toMatch(/invalid_input|invalid_id/);
      expect(error.length).toBeGreaterThan(30);
      expect(await client.sessions()).toBe(0);
    });
  });
});
