import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { LeaseHeartbeat } from "../src/store/lease.js";

/**
 * A holder that cannot renew its lease must stop before the store counts the lease expired and
 * another process takes the session (its writes are fenced by token too, in the store): two thirds
 * of its life without a successful renewal loses it. Renewals answer (or not) as the test says; timers are fake.
 */
describe("a lease's heartbeat", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  const TTL = 6_000;

  it.each([
    {
      when: "loses the lease once renewals have failed for two thirds of its life",
      renew: () => Promise.reject<boolean>(new Error("Connection terminated unexpectedly")),
    },
    { when: "loses it when renewals never answer (the database cut off)", renew: () => new Promise<boolean>(() => {}) },
  ])("$when", async ({ renew }) => {
    const beat = new LeaseHeartbeat(TTL, renew);
    await vi.advanceTimersByTimeAsync(TTL / 3);
    expect(beat.lost.aborted).toBe(false);
    await vi.advanceTimersByTimeAsync(TTL / 3);
    expect(beat.lost.aborted).toBe(true);
    beat.stop();
  });

  it("keeps it through one failed renewal, and loses it when a renewal says it is someone else's", async () => {
    const answers: Array<() => Promise<boolean>> = [
      () => Promise.reject(new Error("Connection terminated unexpectedly")),
      () => Promise.resolve(true),
      () => Promise.resolve(true),
      () => Promise.resolve(false),
    ];
    const beat = new LeaseHeartbeat(TTL, () => (answers.shift() as () => Promise<boolean>)());
    await vi.advanceTimersByTimeAsync(TTL);
    expect(beat.lost.aborted).toBe(false);
    await vi.advanceTimersByTimeAsync(TTL / 3);
    expect(beat.lost.aborted).toBe(true);
    beat.stop();
  });

  it("a write asked between two ticks, two thirds of the life after the last renewal, finds the lease lost", async () => {
    const beat = new LeaseHeartbeat(TTL, () => new Promise<boolean>(() => {}));
    // The clock moves on, no timer fires (the event loop busy elsewhere): only the write's own check can tell.
    vi.setSystemTime(Date.now() + (TTL * 2) / 3 + 1);
    expect(beat.lost.aborted).toBe(false);
    beat.check();
    expect(beat.lost.aborted).toBe(true);
    beat.stop();
  });

  it("counts a renewal from when it was sent, so one answered late does not stretch the lease past the store's expiry", async () => {
    let answer: (held: boolean) => void = () => {};
    const beat = new LeaseHeartbeat(TTL, () => new Promise<boolean>((resolve) => (answer = resolve)));
    await vi.advanceTimersByTimeAsync(TTL / 3);
    const sentAt = Date.now();
    // The renewal's answer arrives 1.9 s after it was sent (a stalled link); the store's new expiry
    // counts from about the send.
    vi.setSystemTime(sentAt + 1_900);
    answer(true);
    await vi.advanceTimersByTimeAsync(0);
    expect(beat.lost.aborted).toBe(false);
    vi.setSystemTime(sentAt + (TTL * 2) / 3 + 1);
    beat.check();
    expect(beat.lost.aborted).toBe(true);
    beat.stop();
  });
});
