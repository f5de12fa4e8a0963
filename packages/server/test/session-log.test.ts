import type { RunEvent } from "@arbor/core";
import { describe, expect, it } from "vitest";
import { SessionLog } from "../src/streams/session-log.js";

const token = (content: string): RunEvent => ({ type: "token", session_id: "s", content });
const done: RunEvent = { type: "done", session_id: "s" };

describe("SessionLog", () => {
  it("reads frames after a cursor, stops after a terminal event, and batches", () => {
    const log = new SessionLog("s", 100);
    log.append(3, token("a"));
    log.append(5, token("b"));
    log.append(8, done);
    log.append(9, token("next run"));
    const all = log.read(0);
    expect(all).toEqual({
      text: `id: 3\ndata: ${JSON.stringify(token("a"))}\n\nid: 5\ndata: ${JSON.stringify(token("b"))}\n\nid: 8\ndata: ${JSON.stringify(done)}\n\n`,
      lastId: 8,
      ended: true,
    });
    expect(log.read(4)).toMatchObject({ lastId: 8 });
    expect(log.read(8)).toMatchObject({ lastId: 9, ended: false });
    expect(log.read(9)).toBeUndefined();
    expect(log.read(10)).toBe("expired");
    expect(log.owns(5) && log.owns(3) && !log.owns(2) && !log.owns(10)).toBe(true);
  });

  it("keeps at most maxEvents; a cursor before what was dropped is expired", () => {
    const log = new SessionLog("s", 3);
    for (let id = 1; id <= 3000; id++) log.append(id, token(String(id)));
    expect(log.read(2996)).toBe("expired");
    expect(log.read(2997)).toMatchObject({ lastId: 3000 });
    expect(log.read(2999)).toMatchObject({ lastId: 3000 });
    expect(log.owns(1)).toBe(true);
  });

  it("wakes waiting readers on append and on close", async () => {
    const log = new SessionLog("s", 10);
    const woken = log.next();
    log.append(1, token("x"));
    await woken;
    const closing = log.next();
    log.close();
    await closing;
    expect(log.isClosed).toBe(true);
  });
});
