import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AssistantMessage, RunEvent, Snapshot } from "@arbor/core";
import { type ProviderWire, type RecordedProviderServer, type RecordedReply, startRecordedProvider } from "@arbor/testkit";
import { afterAll, afterEach, beforeAll, expect } from "vitest";
import { arbor } from "./cli.js";
import { runArborInProcess } from "./in-process.js";
import { messagesOf, snapshotOf } from "./session.js";

export interface RecordedRuns {
  /** A recorded-stream server for one test, closed after it. */
  serve(wire: ProviderWire, replies: RecordedReply[]): Promise<RecordedProviderServer>;
  /** `arbor run --json` to completion with `model` and `env`; returns the session id. */
  run(model: string, env: Record<string, string>, ...rest: string[]): Promise<string>;
  snapshot(id: string): Promise<Snapshot>;
}

/**
 * `arbor run` against recorded provider streams, in a home and workspace of the test file's own
 * (made before its tests and removed after them).
 */
export function recordedRuns(): RecordedRuns {
  let dir = "";
  const servers: RecordedProviderServer[] = [];
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "arbor-recorded-runs-"));
    await mkdir(join(dir, "ws"));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));
  afterEach(async () => {
    for (const server of servers.splice(0)) await server.close();
  });
  const home = () => join(dir, "home");
  return {
    async serve(wire, replies) {
      const server = await startRecordedProvider({ wire, replies });
      servers.push(server);
      return server;
    },
    async run(model, env, ...rest) {
      // In this process, unless `env` holds settings Node reads only when a process starts (a proxy).
      const cli = Object.keys(env).some((k) => k.startsWith("NODE_")) ? arbor : runArborInProcess;
      const r = await cli(["run", "--json", "--model", model, "--cwd", join(dir, "ws"), ...rest], { home: home(), env });
      expect(r.code, r.stderr).toBe(0);
      const events = r.stdout
        .trimEnd()
        .split("\n")
        .map((line) => JSON.parse(line) as RunEvent);
      expect(events.at(-1)?.type).toBe("done");
      return events[0]!.session_id;
    },
    snapshot: (id) => snapshotOf(home(), id),
  };
}

export function assistantsOf(s: Snapshot): AssistantMessage[] {
  return messagesOf(s).filter((m): m is AssistantMessage => m.role === "assistant");
}

export function thinkingLevelsOf(s: Snapshot): Array<string | number> {
  return s.entries.flatMap((e) => (e.type === "thinking_level_change" ? [e.thinkingLevel] : []));
}

/** The parsed JSON body of the server's `call`-th request. */
export function bodyOf<T>(server: RecordedProviderServer, call: number): T {
  return server.requests[call]?.body as T;
}
