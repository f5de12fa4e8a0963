import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll } from "vitest";
import { ArborError } from "../../src/errors.js";
import type { PermissionRequest, ToolContext } from "../../src/tools/tool.js";
import type { ToolProgress } from "../../src/tools/tool-progress.js";

/** A fresh temporary folder per call, removed after the test. realpath so macOS /var links compare equal. */
export function tempDir(prefix = "arbor-tools-"): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

export interface FakeContext extends ToolContext {
  asks: PermissionRequest[];
  progress: ToolProgress[];
  controller: AbortController;
}

/**
 * A tool context whose asks are recorded and answered by `answer` (allow by default); a "reject"
 * answer rejects as the loop will, with a `permission_rejected` ArborError.
 */
export function fakeContext(
  cwd: string,
  options: { answer?: (request: PermissionRequest) => "allow" | "reject"; sessionId?: string } = {},
): FakeContext {
  const asks: PermissionRequest[] = [];
  const progress: ToolProgress[] = [];
  const controller = new AbortController();
  return {
    sessionId: options.sessionId ?? "ses_test",
    messageId: "msg_test",
    callId: "call_test",
    agent: "build",
    cwd,
    abort: controller.signal,
    controller,
    asks,
    progress,
    metadata(update) {
      progress.push(update);
    },
    async ask(request) {
      asks.push(request);
      if ((options.answer?.(request) ?? "allow") === "reject") {
        throw new ArborError(
          "permission_rejected",
          `The user rejected ${request.permission} for ${request.patterns.join(", ")}.`,
        );
      }
    },
  };
}

/** Starts `server` on a free port of 127.0.0.1 for the test file and closes it after the file: its base URL, once listening. */
export function serveForFile(server: Server): () => string {
  let base = "";
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  return () => base;
}
