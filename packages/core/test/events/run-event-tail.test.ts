import { describe, expect, it } from "vitest";
import type { RunEventFrame } from "../../src/events/run-event-records.js";
import { RunEventTail } from "../../src/events/run-event-tail.js";

const frame = (id: number | undefined, terminal = false): RunEventFrame => ({
  id,
  json: JSON.stringify({ type: terminal ? "done" : "token", session_id: "s", content: String(id) }),
  terminal,
});

describe("RunEventTail", () => {
  it("reads frames after a position, stops after a terminal one, and maps log ids to positions", () => {
    const tail = new RunEventTail("s", 100);
    expect(tail.floorId).toBeUndefined();
    tail.beginRun();
    tail.append([frame(3), frame(5), frame(8, true)]);
    tail.beginRun();
    tail.append([frame(9)]);
    expect(tail.read(0)).toEqual({ frames: [frame(3), frame(5), frame(8, true)], pos: 3, ended: true });
    expect(tail.read(3)).toEqual({ frames: [frame(9)], pos: 4, ended: false });
    expect(tail.read(4)).toBeUndefined();
    // The latest run's floor: ids up to 8 are the store's to answer, later ones the tail's.
    expect(tail.floorId).toBe(8);
    expect(tail.positionAfterId(8)).toBe(3);
    expect(tail.positionAfterId(9)).toBe(4);
    expect(tail.positionAfterId(7)).toBeUndefined();
    expect(tail.runStart).toBe(3);
    expect(tail.holdsId(9) && !tail.holdsId(10) && !tail.holdsId(5)).toBe(true);
  });

  it("places no reader after an id the log has but the tail has not been handed yet", () => {
    // A reader that read id 4 from the store before the writer appended it here must not be put
    // before it: the append would then hand it id 4 a second time.
    const tail = new RunEventTail("s", 100);
    tail.beginRun();
    tail.append([frame(3)]);
    expect(tail.positionAfterId(3)).toBe(1);
    expect(tail.positionAfterId(4)).toBeUndefined();
    tail.append([frame(4)]);
    expect(tail.positionAfterId(4)).toBe(2);
    expect(tail.read(2)).toBeUndefined();
  });

  it("keeps at most maxFrames; a position before what was dropped reads as dropped and the floor rises", () => {
    const tail = new RunEventTail("s", 3);
    tail.beginRun();
    for (let id = 1; id <= 3000; id++) tail.append([frame(id)]);
    expect(tail.read(2996)).toBe("dropped");
    expect(tail.read(2997)).toMatchObject({ pos: 3000 });
    expect(tail.floorId).toBe(2997);
    expect(tail.positionAfterId(2996)).toBeUndefined();
    expect(tail.positionAfterId(2998)).toBe(2998);
  });

  it("keeps at most maxChars characters of frames, the newest always, and frees what it dropped", () => {
    const big = (id: number): RunEventFrame => ({
      id,
      json: `{"type":"tool_end","output":"${"x".repeat(1000)}"}`,
      terminal: false,
    });
    const tail = new RunEventTail("s", 10_000, 3_500);
    tail.beginRun();
    for (let id = 1; id <= 10; id++) tail.append([big(id)]);
    // Three frames of ~1,030 characters fit in 3,500; the fourth would not.
    expect(tail.firstHeld).toBe(8);
    expect(tail.read(6)).toBe("dropped");
    expect(tail.read(7)).toMatchObject({ pos: 10 });
    expect(tail.floorId).toBe(7);
    // A frame larger than the whole budget is still held, alone, until the next one comes.
    const huge: RunEventFrame = { id: 11, json: "y".repeat(10_000), terminal: false };
    tail.append([huge]);
    expect(tail.read(10)).toEqual({ frames: [huge], pos: 11, ended: false });
    tail.append([big(12)]);
    expect(tail.read(10)).toBe("dropped");
    expect(tail.read(11)).toMatchObject({ pos: 12 });
  });

  it("measures a frame by its `chars` when it says them, without asking for its JSON", () => {
    let made = 0;
    const lazy = (id: number): RunEventFrame => ({
      id,
      terminal: false,
      chars: 500,
      get json() {
        made++;
        return "{}";
      },
    });
    const tail = new RunEventTail("s", 100, 1_000);
    tail.beginRun();
    for (let id = 1; id <= 5; id++) tail.append([lazy(id)]);
    expect(tail.firstHeld).toBe(4);
    expect(made).toBe(0);
  });

  it("passes over frames that were never logged when mapping ids", () => {
    const tail = new RunEventTail("s", 10);
    tail.beginRun();
    tail.append([frame(4), frame(undefined), frame(6)]);
    expect(tail.positionAfterId(4)).toBe(2);
    expect(tail.positionAfterId(6)).toBe(3);
    expect(tail.lastId).toBe(6);
  });

  it("wakes waiting readers on append, at a run's end and on close", async () => {
    const tail = new RunEventTail("s", 10);
    tail.beginRun();
    const appended = tail.next();
    tail.append([frame(1)]);
    await appended;
    const ended = tail.next();
    tail.endRun();
    await ended;
    expect(tail.running).toBe(false);
    const closing = tail.next();
    tail.close();
    await closing;
    expect(tail.isClosed).toBe(true);
  });
});
