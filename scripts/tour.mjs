// The README's main job until `arbor demo` exists: records a small branched session in the
// embedded SQLite store through the library, then drives the real `arbor` CLI over it.
import { spawnSync } from "node:child_process";
import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { openStore } from "@arbor/core";

const root = fileURLToPath(new URL("..", import.meta.url));
const home = join(root, ".arbor-tour");
rmSync(home, { recursive: true, force: true });
mkdirSync(home, { recursive: true });
const sqlite = `sqlite:${join(home, "tour.db")}`;
const files = join(home, "files");

const store = await openStore(sqlite);
const session = await store.createSession({ title: "Fix the failing date test", cwd: root });
const ask = await store.appendMessage(session.id, { role: "user", content: "The date test fails. Can you fix it?" });
await store.appendModelChange(session.id, "openai/gpt-4o");
await store.appendMessage(session.id, {
  role: "assistant",
  content: [
    { type: "text", text: "Let me read the test first." },
    { type: "tool-call", toolCallId: "c1", toolName: "read", input: { path: "test/date.test.ts" } },
  ],
  tokens: { input: 812, output: 40, reasoning: 0, cacheRead: 0, cacheWrite: 0 },
  cost: 0.0024,
});
await store.appendMessage(session.id, {
  role: "tool",
  content: [
    {
      type: "tool-result",
      toolCallId: "c1",
      toolName: "read",
      output: { type: "text", value: "expect(format(d)).toBe('2026-01-02')" },
    },
  ],
});
const first = await store.appendMessage(session.id, {
  role: "assistant",
  content: "The formatter uses local time; switching it to UTC fixes the test.",
});
await store.appendLabelChange(session.id, first.id, "utc-fix");
// A second branch from the same question, then back to the first answer.
await store.appendMessage(
  session.id,
  { role: "assistant", content: "Alternatively, pin TZ=UTC in the test setup." },
  { parentId: ask.id },
);
await store.switchLeaf(session.id, first.id);
await store.close();

const bin = join(root, "packages/cli/bin/arbor.js");
function arbor(...args) {
  console.log(`\n$ arbor ${args.join(" ")}`);
  const r = spawnSync(process.execPath, [bin, ...args], { stdio: "inherit" });
  if (r.status !== 0) {
    console.error(`arbor ${args[0]} ${args[1] ?? ""} exited with ${r.status}`);
    process.exit(1);
  }
}

arbor("sessions", "list", "--store", sqlite);
arbor("sessions", "tree", session.id, "--store", sqlite);
arbor("sessions", "show", session.id, "--store", sqlite);
const exported = join(home, "session.json");
arbor("sessions", "export", session.id, "--store", sqlite, "--out", exported);
arbor("sessions", "import", exported, "--store", files, "--create");
arbor("sessions", "tree", session.id, "--store", files);
console.log(`\nThe tour's stores are in ${home} (SQLite: ${sqlite}; files: ${files}).`);
