import { openStore, type SessionMeta, type Store, type StoreSpec } from "@arbor/core";

/** Opens a store, runs `fn`, and closes it again whatever happens. */
export async function withStore<T>(spec: string | StoreSpec, fn: (store: Store) => Promise<T>): Promise<T> {
  const store = await openStore(spec);
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}

export interface Seeded {
  /** A session with three branches off one entry, labels and most entry types; the leaf is on the middle branch. */
  branchy: SessionMeta;
  /** A sub-session of `branchy`. */
  sub: SessionMeta;
  /** A short second session. */
  plain: SessionMeta;
}

export async function seed(store: Store): Promise<Seeded> {
  const created = await store.createSession({ title: "Branchy session", cwd: "/work" });
  const id = created.id;
  await store.appendMessage(id, { role: "system", content: "You are terse." });
  await store.appendThinkingLevelChange(id, "low");
  const u1 = await store.appendMessage(id, { role: "user", content: "List the files\nin the repo" });
  await store.appendMessage(id, {
    role: "assistant",
    content: [
      { type: "text", text: "Let me look." },
      { type: "tool-call", toolCallId: "call-1", toolName: "ls", input: { path: "." } },
    ],
    tokens: { input: 10, output: 5, reasoning: 0, cacheRead: 0, cacheWrite: 0 },
  });
  await store.appendMessage(id, {
    role: "tool",
    content: [{ type: "tool-result", toolCallId: "call-1", toolName: "ls", output: { type: "text", value: "a.ts\nb.ts" } }],
  });
  const fork = await store.appendMessage(id, { role: "assistant", content: "Two files: a.ts and b.ts." });
  const first = await store.appendMessage(id, { role: "user", content: "Open a.ts" });
  await store.appendMessage(id, { role: "assistant", content: "a.ts exports one function." });
  const second = await store.appendMessage(id, { role: "user", content: "Open b.ts instead" }, { parentId: fork.id });
  await store.appendModelChange(id, "openai/gpt-4o");
  const leaf = await store.appendMessage(id, { role: "assistant", content: "b.ts is empty." });
  await store.appendMessage(id, { role: "user", content: "Never mind" }, { parentId: fork.id });
  await store.appendBranchSummary(id, { fromId: first.id, summary: "Looked at a.ts" }, { parentId: second.id });
  await store.appendLabelChange(id, first.id, "draft", { parentId: leaf.id });
  await store.appendLabelChange(id, u1.id, "start");
  await store.appendSessionInfo(id, { title: "Branchy session" });
  await store.switchLeaf(id, leaf.id);

  const sub = await store.createSession({ parentSessionId: id, agentType: "explore", task: "look around" });
  await store.appendMessage(sub.id, { role: "user", content: "look around" });

  const plain = await store.createSession({ title: "Plain session" });
  await store.appendMessage(plain.id, { role: "user", content: "hi" });
  await store.appendMessage(plain.id, { role: "assistant", content: "hello" });

  const reload = async (sid: string) => (await store.getSession(sid)) as SessionMeta;
  return { branchy: await reload(id), sub: await reload(sub.id), plain: await reload(plain.id) };
}
