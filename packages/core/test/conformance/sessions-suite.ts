import { describe, expect, it } from "vitest";
import { ArborError } from "../../src/errors.js";
import type { SessionMeta } from "../../src/model/session.js";
import type { Store } from "../../src/store/store.js";
import { BAD_IDS } from "./bad-ids.js";
import { harnessPerTest, type MakeHarness } from "./harness.js";

export async function expectCode(p: Promise<unknown> | (() => unknown), code: string): Promise<ArborError> {
  try {
    await (typeof p === "function" ? p() : p);
  } catch (err) {
    expect(err).toBeInstanceOf(ArborError);
    expect((err as ArborError).code).toBe(code);
    return err as ArborError;
  }
  throw new Error(`expected an ArborError with code ${code}, but the call succeeded`);
}

async function allPages(
  store: Store,
  opts: { limit: number; parentSessionId?: string | null; cwd?: string },
): Promise<SessionMeta[][]> {
  const pages: SessionMeta[][] = [];
  let cursor: string | undefined;
  do {
    const page = await store.listSessions({ ...opts, cursor });
    pages.push(page.sessions);
    cursor = page.nextCursor;
  } while (cursor);
  return pages;
}

export function sessionsSuite(makeHarness: MakeHarness): void {
  describe("sessions", () => {
    // Inside the describe: its hooks then make a harness for this suite's tests only, not for every
    // test of the whole conformance run.
    const h = harnessPerTest(makeHarness);

    it("creates a session with defaults and reads it back", async () => {
      const meta = await h.store.createSession();
      expect(meta).toMatchObject({
        version: 1,
        provider: h.store.provider,
        rootEntryId: null,
        leafEntryId: null,
        mode: "agent",
        agentType: "main",
        totalMessages: 0,
        totalTokens: 0,
        totalCost: 0,
      });
      expect(meta.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      expect(await h.store.getSession(meta.id)).toEqual(meta);
    });

    it("keeps every init field, and refuses an id that exists", async () => {
      const parent = await h.store.createSession({ id: "parent-1" });
      const init = {
        id: "child-1@explore-20260101120000-001",
        cwd: "/work/x",
        agentId: "build",
        title: "A title",
        task: "look around",
        mode: "call" as const,
        agentType: "explore",
        parentSessionId: parent.id,
        parentGoalId: "3",
        context: { allowedTools: ["read"], maxTurns: 20, timeout: 60 },
      };
      const meta = await h.store.createSession(init);
      const { id, ...rest } = init;
      expect(meta).toMatchObject({ id, ...rest });
      expect(await (await h.reopen()).getSession(id)).toEqual(meta);
      await expectCode(h.store.createSession({ id }), "session_exists");
    });

    it("updates meta fields and refuses fields the store owns", async () => {
      const meta = await h.store.createSession({ title: "before" });
      const updated = await h.store.updateSession(meta.id, {
        title: "after",
        status: "completed",
        completedAt: "2026-01-01T00:00:00.000Z",
      });
      expect(updated).toMatchObject({ title: "after", status: "completed", completedAt: "2026-01-01T00:00:00.000Z" });
      await expectCode(h.store.updateSession(meta.id, { leafEntryId: "x" } as never), "invalid_input");
      await expectCode(h.store.updateSession(meta.id, { status: "bogus" } as never), "invalid_input");
      expect(await (await h.reopen()).getSession(meta.id)).toEqual(updated);
    });

    it("reports a missing session as undefined from getSession and session_not_found elsewhere", async () => {
      expect(await h.store.getSession("no-such-session")).toBeUndefined();
      const s = h.store;
      const calls: Array<() => Promise<unknown>> = [
        () => s.updateSession("nope", { title: "x" }),
        () => s.deleteSession("nope"),
        () => s.listEntries("nope"),
        () => s.appendMessage("nope", { role: "user", content: "hi" }),
        () => s.switchLeaf("nope", "abc"),
        () => s.resetLeaf("nope"),
        () => s.getActivePath("nope"),
        () => s.getSnapshot("nope"),
        () => s.createBranchedSession("nope", "abc"),
        () => s.exportSession("nope"),
        () => s.updateEntry("nope", "abc", {}),
      ];
      for (const call of calls) await expectCode(call, "session_not_found");
    });

    it("pages newest first with cursors, and filters by parent", async () => {
      const top: SessionMeta[] = [];
      for (let i = 0; i < 7; i++) top.push(await h.store.createSession({ title: `s${i}` }));
      const kids: SessionMeta[] = [];
      for (let i = 0; i < 2; i++) kids.push(await h.store.createSession({ parentSessionId: top[0]?.id }));
      const pages = await allPages(h.store, { limit: 3 });
      expect(pages.map((p) => p.length)).toEqual([3, 3, 3]);
      const flat = pages.flat();
      const expected = [...top, ...kids].sort((a, b) =>
        a.createdAt !== b.createdAt ? (a.createdAt < b.createdAt ? 1 : -1) : a.id < b.id ? 1 : -1,
      );
      expect(flat.map((m) => m.id)).toEqual(expected.map((m) => m.id));
      const topOnly = (await allPages(h.store, { limit: 4, parentSessionId: null })).flat();
      expect(topOnly.map((m) => m.id).sort()).toEqual(top.map((m) => m.id).sort());
      const children = (await h.store.listSessions({ parentSessionId: top[0]?.id })).sessions;
      expect(children.map((m) => m.id).sort()).toEqual(kids.map((m) => m.id).sort());
      await expectCode(h.store.listSessions({ cursor: "not-a-cursor" }), "invalid_cursor");
      await expectCode(h.store.listSessions({ limit: 0 }), "invalid_input");
      await expectCode(h.store.listSessions({ limit: 1001 }), "invalid_input");
    });

    it("lists sessions made in quick succession newest first, in the order they were made", async () => {
      const made: SessionMeta[] = [];
      for (let i = 0; i < 30; i++) made.push(await h.store.createSession({ title: `quick ${i}` }));
      const listed = (await h.store.listSessions({ limit: 30 })).sessions;
      expect(listed.map((m) => m.title)).toEqual(made.map((m) => m.title).reverse());
    });

    it("filters by workspace, alone and with a parent, across pages and after the meta changes", async () => {
      const here = "/work/project-a";
      const mine: SessionMeta[] = [];
      for (let i = 0; i < 5; i++) mine.push(await h.store.createSession({ cwd: here }));
      const other = await h.store.createSession({ cwd: "/work/project-b" });
      await h.store.createSession();
      const kid = await h.store.createSession({ cwd: here, parentSessionId: mine[0]?.id });
      // Appending rewrites the session's meta; the workspace stays with it.
      await h.store.appendMessage(mine[1]!.id, { role: "user", content: "hello" });
      const listed = (await allPages(h.store, { limit: 2, cwd: here })).flat().map((m) => m.id);
      expect(listed.sort()).toEqual([...mine.map((m) => m.id), kid.id].sort());
      const topHere = (await h.store.listSessions({ cwd: here, parentSessionId: null })).sessions.map((m) => m.id);
      expect(topHere.sort()).toEqual(mine.map((m) => m.id).sort());
      expect((await h.store.listSessions({ cwd: here, parentSessionId: mine[0]?.id })).sessions.map((m) => m.id)).toEqual([
        kid.id,
      ]);
      // A prefix of a workspace is another workspace.
      expect((await h.store.listSessions({ cwd: "/work/project" })).sessions).toEqual([]);
      await h.store.updateSession(other.id, { cwd: here });
      expect((await h.store.listSessions({ cwd: "/work/project-b" })).sessions).toEqual([]);
      expect((await h.store.listSessions({ cwd: here, limit: 100 })).sessions.map((m) => m.id)).toContain(other.id);
    });

    it("deletes a session with its entries and sub-sessions, and nothing else", async () => {
      const a = await h.store.createSession();
      const b = await h.store.createSession();
      const child = await h.store.createSession({ parentSessionId: a.id });
      const grandchild = await h.store.createSession({ parentSessionId: child.id });
      await h.store.appendMessage(a.id, { role: "user", content: "in a" });
      await h.store.appendMessage(b.id, { role: "user", content: "in b" });
      await h.store.deleteSession(a.id);
      for (const id of [a.id, child.id, grandchild.id]) expect(await h.store.getSession(id)).toBeUndefined();
      await expectCode(h.store.listEntries(a.id), "session_not_found");
      expect((await h.store.listEntries(b.id)).length).toBe(1);
      const reopened = await h.reopen();
      expect(await reopened.getSession(a.id)).toBeUndefined();
      expect((await reopened.listSessions()).sessions.map((m) => m.id)).toEqual([b.id]);
      await expectCode(reopened.deleteSession(a.id), "session_not_found");
    });

    it("rejects bad ids with invalid_id and writes nothing", async () => {
      const meta = await h.store.createSession();
      const e = await h.store.appendMessage(meta.id, { role: "user", content: "hello" });
      for (const [, bad] of BAD_IDS) {
        const id = bad as string;
        await expectCode(h.store.createSession({ id }), "invalid_id");
        await expectCode(h.store.getSession(id), "invalid_id");
        await expectCode(h.store.appendMessage(id, { role: "user", content: "x" }), "invalid_id");
        await expectCode(h.store.deleteSession(id), "invalid_id");
        await expectCode(h.store.listEntries(id), "invalid_id");
        await expectCode(h.store.switchLeaf(meta.id, id), "invalid_id");
        await expectCode(h.store.getEntry(meta.id, id), "invalid_id");
        await expectCode(h.store.appendMessage(meta.id, { role: "user", content: "x" }, { parentId: id }), "invalid_input");
        await expectCode(h.store.appendLabelChange(meta.id, id, "l"), "invalid_input");
      }
      const reopened = await h.reopen();
      expect((await reopened.listSessions()).sessions.map((m) => m.id)).toEqual([meta.id]);
      expect(await reopened.listEntries(meta.id)).toEqual([e]);
      expect((await reopened.getSession(meta.id))?.leafEntryId).toBe(e.id);
    });
  });
}
