import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Snapshot } from "@arbor/core";
import { text, toolCall } from "@arbor/testkit";
import { describe, expect, it } from "vitest";
import { hasGit } from "../../../test-setup/git.js";
import { json } from "./helpers/json.js";
import { errorOf, startServer } from "./helpers/server.js";
import { chatToDone } from "./helpers/sse.js";

const lines = (...changed: [number, string][]) =>
  Array.from({ length: 10 }, (_, i) => changed.find(([n]) => n === i + 1)?.[1] ?? `l${i + 1}`)
    .map((l) => `${l}\n`)
    .join("");

type Revert = { session_id: string; to: string; leaf: string; files: number; scope: string };

/** Two turns: the first changes line 1 of a.txt and adds b.txt, the second changes line 10 of a.txt. */
async function twoTurns(extra: Parameters<typeof startServer>[0] = {}) {
  const server = await startServer({
    runtime: { snapshots: true },
    script: [
      [toolCall("write", { path: "a.txt", content: lines([1, "X1"]) }), toolCall("write", { path: "b.txt", content: "b1\n" })],
      [text("First done.")],
      [toolCall("write", { path: "a.txt", content: lines([1, "X1"], [10, "X10"]) })],
      [text("Second done.")],
      [toolCall("write", { path: "c.txt", content: "c\n" })],
      [text("Third done.")],
    ],
    ...extra,
  });
  await writeFile(join(server.cwd, "a.txt"), lines());
  const id = await chatToDone(server, "first");
  await chatToDone(server, "second", id);
  const snapshot = await json<Snapshot>(server.api(`/api/sessions/${id}`));
  const users = snapshot.entries.filter((e) => e.type === "message" && e.message.role === "user").map((e) => e.id);
  const steps = snapshot.entries.filter((e) => e.type === "custom" && e.customType === "arbor.patch").map((e) => e.id);
  expect(steps).toHaveLength(2);
  const read = (name: string) => readFile(join(server.cwd, name), "utf8");
  const leaf = async () => (await json<Snapshot>(server.api(`/api/sessions/${id}`))).session.leafEntryId;
  return { server, id, users, steps, read, leaf };
}

describe.skipIf(!hasGit)("revert one file or one step; unrevert after later entries (git on the PATH)", () => {
  it("a single file goes back as it was before an entry; the conversation stays; unrevert brings it back", async () => {
    const { server, id, users, read, leaf } = await twoTurns();
    const leafBefore = await leaf();
    const r = await json<Revert>(server.api(`/api/sessions/${id}/revert`, { json: { file: "a.txt", to: users[0] } }));
    expect(r).toMatchObject({ files: 1, scope: "file" });
    expect(await read("a.txt")).toBe(lines());
    expect(await read("b.txt")).toBe("b1\n");
    const snapshot = await json<Snapshot>(server.api(`/api/sessions/${id}`));
    expect(snapshot.session.leafEntryId).toBe(r.leaf);
    expect(snapshot.entries.at(-1)).toMatchObject({ customType: "arbor.revert", parentId: leafBefore });

    const back = await json<{ leaf: string; files: number }>(server.api(`/api/sessions/${id}/unrevert`, { method: "POST" }));
    expect(back.files).toBe(1);
    expect(await read("a.txt")).toBe(lines([1, "X1"], [10, "X10"]));
    expect(await leaf()).toBe(back.leaf);
    expect(await errorOf(await server.api(`/api/sessions/${id}/unrevert`, { method: "POST" }))).toMatchObject({
      status: 409,
      code: "nothing_to_unrevert",
    });
  });

  it("a single step's change is taken back hunk by hunk, keeping later changes; a clash changes nothing", async () => {
    const { server, id, steps, read } = await twoTurns();
    const r = await json<Revert>(server.api(`/api/sessions/${id}/revert`, { json: { step: steps[0] } }));
    expect(r).toMatchObject({ files: 2, scope: "step", to: steps[0] });
    // Line 1 is back, the second turn's line 10 stays, the file the step added is gone.
    expect(await read("a.txt")).toBe(lines([10, "X10"]));
    expect(existsSync(join(server.cwd, "b.txt"))).toBe(false);
    await json(server.api(`/api/sessions/${id}/unrevert`, { method: "POST" }));
    expect(await read("a.txt")).toBe(lines([1, "X1"], [10, "X10"]));
    expect(await read("b.txt")).toBe("b1\n");

    // The user rewrote line 10 since: the second step's change no longer fits, and nothing moves.
    await writeFile(join(server.cwd, "a.txt"), lines([1, "X1"], [10, "mine"]));
    const before = await json<Snapshot>(server.api(`/api/sessions/${id}`));
    expect(await errorOf(await server.api(`/api/sessions/${id}/revert`, { json: { step: steps[1] } }))).toMatchObject({
      status: 409,
      code: "revert_conflict",
    });
    expect(await read("a.txt")).toBe(lines([1, "X1"], [10, "mine"]));
    expect(await json<Snapshot>(server.api(`/api/sessions/${id}`))).toEqual(before);
  });

  it("unrevert after later entries restores the reverted turn's files and keeps what came since", async () => {
    const { server, id, users, read, leaf } = await twoTurns();
    const r = await json<Revert>(server.api(`/api/sessions/${id}/revert`, { json: { to: users[1] } }));
    expect(r.scope).toBe("session");
    expect(await read("a.txt")).toBe(lines([1, "X1"]));
    // A new turn after the revert: the revert is no longer the leaf.
    await chatToDone(server, "third", id);
    expect(await read("c.txt")).toBe("c\n");
    const leafAfter = await leaf();
    const back = await json<{ leaf: string; files: number }>(server.api(`/api/sessions/${id}/unrevert`, { method: "POST" }));
    expect(back.files).toBe(1);
    expect(await read("a.txt")).toBe(lines([1, "X1"], [10, "X10"]));
    expect(await read("c.txt")).toBe("c\n");
    const snapshot = await json<Snapshot>(server.api(`/api/sessions/${id}`));
    expect(snapshot.entries.at(-1)).toMatchObject({
      customType: "arbor.unrevert",
      parentId: leafAfter,
      data: { revertId: r.leaf },
    });
    expect(snapshot.session.leafEntryId).toBe(back.leaf);
  });

  it("stays inside the session's workspace: a path outside it, or both to and step, is refused and changes nothing", async () => {
    const { server, id, users, steps, read } = await twoTurns();
    const before = await json<Snapshot>(server.api(`/api/sessions/${id}`));
    for (const file of ["../outside.txt", "/etc/passwd", join(server.cwd, "..", "x")]) {
      expect(await errorOf(await server.api(`/api/sessions/${id}/revert`, { json: { file } }))).toMatchObject({
        status: 409,
        code: "revert_refused",
      });
    }
    expect(
      await errorOf(await server.api(`/api/sessions/${id}/revert`, { json: { to: users[0], step: steps[0] } })),
    ).toMatchObject({ status: 400 });
    expect(await errorOf(await server.api(`/api/sessions/${id}/revert`, { json: { step: users[0] } }))).toMatchObject({
      status: 404,
      code: "entry_not_found",
    });
    expect(await json<Snapshot>(server.api(`/api/sessions/${id}`))).toEqual(before);
    expect(await read("a.txt")).toBe(lines([1, "X1"], [10, "X10"]));
  });
});
