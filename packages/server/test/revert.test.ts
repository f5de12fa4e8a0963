import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Snapshot } from "@arbor/core";
import { text, toolCall } from "@arbor/testkit";
import { describe, expect, it } from "vitest";
import { hasGit } from "../../../test-setup/git.js";
import { json } from "./helpers/json.js";
import { errorOf, startServer } from "./helpers/server.js";
import { readSse } from "./helpers/sse.js";

describe.skipIf(!hasGit)("POST /api/sessions/:id/revert and /unrevert (git on the PATH)", () => {
  it("takes the workspace and the leaf back and forth; bad input is a clear error that changes nothing", async () => {
    const server = await startServer({
      runtime: { snapshots: true },
      script: [
        [
          toolCall("write", { path: "notes.txt", content: "rewritten by the agent\n" }),
          toolCall("write", { path: "new/file.ts", content: "export {};\n" }),
        ],
        [text("Done.")],
      ],
    });
    const notes = join(server.cwd, "notes.txt");
    await writeFile(notes, "the user's notes\n");
    const events = await readSse(await server.api("/api/chat", { json: { message: "Rewrite the notes." } }));
    expect(events.at(-1)?.event.type).toBe("done");
    const id = events[0]?.event.session_id as string;
    expect(await readFile(notes, "utf8")).toBe("rewritten by the agent\n");
    const before = await json<Snapshot>(server.api(`/api/sessions/${id}`));

    // An entry that is not on the path: 404, and neither the files nor the session moved.
    expect(await errorOf(await server.api(`/api/sessions/${id}/revert`, { json: { to: "nosuchentry" } }))).toMatchObject({
      status: 404,
      code: "entry_not_found",
    });
    expect(await readFile(notes, "utf8")).toBe("rewritten by the agent\n");
    expect(await json<Snapshot>(server.api(`/api/sessions/${id}`))).toEqual(before);
    expect(await errorOf(await server.api(`/api/sessions/${id}/unrevert`, { method: "POST" }))).toMatchObject({
      status: 409,
      code: "nothing_to_unrevert",
    });

    const reverted = await json<{ session_id: string; files: number; leaf: string }>(
      server.api(`/api/sessions/${id}/revert`, { json: {} }),
    );
    expect(reverted).toMatchObject({ session_id: id, files: 2 });
    expect(await readFile(notes, "utf8")).toBe("the user's notes\n");
    expect(existsSync(join(server.cwd, "new", "file.ts"))).toBe(false);
    expect((await json<Snapshot>(server.api(`/api/sessions/${id}`))).session.leafEntryId).toBe(reverted.leaf);

    const back = await json<{ leaf: string; files: number }>(server.api(`/api/sessions/${id}/unrevert`, { method: "POST" }));
    expect(back).toMatchObject({ leaf: before.session.leafEntryId, files: 2 });
    expect(await readFile(notes, "utf8")).toBe("rewritten by the agent\n");
    expect(await readFile(join(server.cwd, "new", "file.ts"), "utf8")).toBe("export {};\n");
  });
});
