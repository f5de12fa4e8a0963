import type { StepContext } from "@arbor/testkit";
import { text } from "@arbor/testkit";
import { describe, expect, it } from "vitest";
import { SummaryResponse } from "../src/routes/summary.js";
import { json } from "./helpers/json.js";
import { errorOf, startServer } from "./helpers/server.js";
import { readSse } from "./helpers/sse.js";

type Prompt = Array<{ role: string; content: unknown }>;

describe("POST /api/sessions/:id/summary", () => {
  it("has the summary helper write what the session did, and writes nothing to it", async () => {
    let asked: Prompt | undefined;
    const server = await startServer({
      script: [
        [text("The port is 8080.")],
        (call: StepContext) => {
          asked = (call as { options: { prompt: Prompt } }).options.prompt;
          return [text("- Asked which port\n- Answered 8080")];
        },
      ],
    });
    const events = await readSse(await server.api("/api/chat", { json: { message: "which port?" } }));
    const id = events[0]?.event.session_id as string;
    const before = await server.store.listEntries(id);

    const result = SummaryResponse.parse(await json(server.api(`/api/sessions/${id}/summary`, { json: {} })));
    expect(result).toMatchObject({ session_id: id, summary: "- Asked which port\n- Answered 8080", cost: null });
    expect(String(asked?.[0]?.content)).toMatch(/^Summarize the conversation below for someone who was not there/);
    expect(JSON.stringify(asked?.[1])).toContain("which port?");
    expect(JSON.stringify(asked?.[1])).toContain("The port is 8080.");
    expect(await server.store.listEntries(id)).toEqual(before);

    expect(await errorOf(await server.api("/api/sessions/nosuchsession/summary", { json: {} }))).toMatchObject({
      status: 404,
      code: "session_not_found",
    });
    const empty = await server.runtime.sessions.create();
    expect(await errorOf(await server.api(`/api/sessions/${empty.id}/summary`, { json: {} }))).toMatchObject({
      status: 400,
      code: "invalid_input",
    });
  });
});
