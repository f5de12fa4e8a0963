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

  it("GET /api/sessions/:id/diff: every file the session changed across its steps, as one diff", async () => {
    const server = await startServer({
      runtime: { snapshots: true },
      script: [
        [toolCall("write", { path: "a.txt", content: "one\n" })],
        [toolCall("write", { path: "b.txt", content: "bee\n" })],
        [toolCall("write", { path: "a.txt", content: "one\ntwo\n" }), toolCall("write", { path: "tmp.txt", content: "x" })],
        [toolCall("bash", { command: "rm tmp.txt" })],
        [text("Done.")],
      ],
    });
    await writeFile(join(server.cwd, "b.txt"), "b\n");
    const events = await readSse(await server.api("/api/chat", { json: { message: "Edit the files." } }));
    const id = events[0]?.event.session_id as string;
    type Diff = { session_id: string; steps: number; files: { path: string; status: string; diff: string }[] };
    const diff = await json<Diff>(server.api(`/api/sessions/${id}/diff`));
    expect(diff.steps).toBe(4);
    // tmp.txt was made and removed again: not a change of the session's.
    expect(diff.files.map((f) => [f.path, f.status])).toEqual([
      ["a.txt", "added"],
      ["b.txt", "modified"],
    ]);
    expect(diff.files[0]?.diff).toContain("+one\n+two");
    expect(diff.files[1]?.diff).toContain("-b\n+bee");
    // A session that changed nothing has an empty diff; an unknown one is 404.
    const quiet = await readSse(await server.api("/api/chat", { json: { message: "hi" } }));
    const none = await json<Diff>(server.api(`/api/sessions/${quiet[0]?.event.session_id}/diff`));
    expect(none).toMatchObject({ steps: 0, files: [] });
    expect(await errorOf(await server.api("/api/sessions/nosuch/diff"))).toMatchObject({
      status: 404,
      code: "session_not_found",
    });
  });
});
