import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type StreamResponse, TaskState } from "@a2a-js/sdk";
import {
  type Client,
  ClientFactory,
  ClientFactoryOptions,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
} from "@a2a-js/sdk/client";
import { text, toolCall } from "@arbor/testkit";
import { describe, expect, it, vi } from "vitest";
import { a2aRequest } from "./helpers/protocol-clients.js";
import { gateTool, startInstance, startServer, workspaceDir } from "./helpers/server.js";

const clientOf = (url: string, token?: string): Promise<Client> => {
  if (token === undefined) return new ClientFactory().createFromUrl(url);
  // The SDK's own client, sending the bearer token on every request (card and JSON-RPC).
  const fetchImpl: typeof fetch = (input, init) => {
    const headers = new Headers(init?.headers);
    headers.set("authorization", `Bearer ${token}`);
    return fetch(input, { ...init, headers });
  };
  const options = ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
    transports: [new JsonRpcTransportFactory({ fetchImpl })],
    cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
  });
  return new ClientFactory(options).createFromUrl(url);
};

async function collect(stream: AsyncGenerator<StreamResponse>): Promise<StreamResponse[]> {
  const all: StreamResponse[] = [];
  for await (const r of stream) all.push(r);
  return all;
}

const states = (responses: StreamResponse[]) =>
  responses.map((r) =>
    r.payload?.$case === "task"
      ? r.payload.value.status?.state
      : r.payload?.$case === "statusUpdate"
        ? r.payload.value.status?.state
        : "artifact",
  );

const textOf = (parts: { content?: { $case: string; value: unknown } }[] | undefined) =>
  (parts ?? []).flatMap((p) => (p.content?.$case === "text" ? [p.content.value as string] : [])).join("");

describe("A2A server", () => {
  it("serves the agent card and answers SendMessage with a completed task carrying the answer", async () => {
    const server = await startServer({ script: [[text("The answer is 42.", { chunks: 3 })]] });
    const card = (await (await server.api("/.well-known/agent-card.json")).json()) as {
      skills: { id: string }[];
      supportedInterfaces: { url: string }[];
    };
    expect(card.supportedInterfaces[0]?.url).toBe(`${server.url}/a2a`);
    expect(card.skills.length).toBeGreaterThan(0);
    const client = await clientOf(server.url);
    const result = await client.sendMessage(a2aRequest("What is the answer?"));
    expect("id" in result).toBe(true);
    const task = result as Exclude<typeof result, { messageId: string }>;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(task.contextId).toBe(task.id);
    expect(textOf(task.artifacts.find((a) => a.name === "answer")?.parts)).toBe("The answer is 42.");
    // The task is the session: GetTask reads it back from the store.
    const read = await client.getTask({ tenant: "", id: task.id });
    expect(read.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect((await server.store.getSession(task.id))?.id).toBe(task.id);
  });

  it("streams a run that asks permission to input-required, and the next message answers it", async () => {
    const server = await startServer({
      script: [
        [toolCall("read", { path: ".env" }, { id: "r1" })],
        [toolCall("write", { path: "out.txt", content: "hi" }, { id: "w1" })],
        [text("Wrote it.")],
      ],
    });
    writeFileSync(join(server.cwd, ".env"), "KEY=1\n");
    const client = await clientOf(server.url);
    const first = await collect(client.sendMessageStream(a2aRequest("write out.txt")));
    expect(states(first)).toEqual([TaskState.TASK_STATE_WORKING, TaskState.TASK_STATE_INPUT_REQUIRED]);
    const asked = first.at(-1)?.payload;
    const taskId = asked?.$case === "statusUpdate" ? asked.value.taskId : "";
    expect(asked?.$case === "statusUpdate" && textOf(asked.value.status?.message?.parts)).toContain("Permission needed: read");
    expect((await client.getTask({ tenant: "", id: taskId })).status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);

    const second = await collect(client.sendMessageStream(a2aRequest("yes", taskId)));
    expect(states(second).at(-1)).toBe(TaskState.TASK_STATE_COMPLETED);
    const files = second.flatMap((r) =>
      r.payload?.$case === "artifactUpdate" && r.payload.value.artifact?.name === "changed-files"
        ? [r.payload.value.artifact]
        : [],
    );
    expect(files[0]?.parts[0]?.content).toEqual({ $case: "data", value: { files: ["out.txt"] } });
    const done = await client.getTask({ tenant: "", id: taskId });
    expect(textOf(done.artifacts.find((a) => a.name === "answer")?.parts)).toBe("Wrote it.");
  });

  it("bad input is a clear JSON-RPC error and writes nothing", async () => {
    const server = await startServer({ script: [[text("never")]] });
    const client = await clientOf(server.url);
    await expect(client.sendMessage(a2aRequest(""))).rejects.toThrow(/empty/);
    await expect(client.sendMessage(a2aRequest("hi", "no-such-task"))).rejects.toThrow(/No task no-such-task/);
    const raw = await server.api("/a2a", { json: { jsonrpc: "2.0", id: 1, method: "SendMessage", params: "nope" } });
    expect(((await raw.json()) as { error: { code: number } }).error.code).toBeLessThan(0);
    expect((await server.store.listSessions({})).sessions).toHaveLength(0);
  });

  it("a task is resubscribed on a new server over the same store after a restart", async () => {
    const root = workspaceDir();
    const store = join(root, "store");
    const gate = gateTool();
    const clock = { now: () => Date.now(), sleep: async () => {} };
    const a = await startInstance(root, {
      store,
      script: [[toolCall("gate", {}, { id: "g1" })], [text("after")]],
      tools: [gate.tool],
      runtime: { clock },
    });
    const clientA = await clientOf(a.url);
    const stream = clientA.sendMessageStream(a2aRequest("go"));
    const firstStep = await stream.next();
    const taskId = firstStep.value?.payload?.$case === "task" ? firstStep.value.payload.value.id : "";
    expect(taskId).not.toBe("");
    // The run holds at the gate: its session and first events are in the store.
    await vi.waitFor(() => expect(gate.calls).toBe(1));
    await stream.return(undefined);
    await a.stop();

    const b = await startInstance(root, { store, script: [], runtime: { clock } });
    const clientB = await clientOf(b.url);
    const resumed = await collect(clientB.resubscribeTask({ tenant: "", id: taskId }));
    expect(resumed[0]?.payload?.$case).toBe("task");
    // The run went with server A: its end is recorded, and the task reads as canceled everywhere.
    expect(states(resumed).at(-1)).toBe(TaskState.TASK_STATE_CANCELED);
    expect((await clientB.getTask({ tenant: "", id: taskId })).status?.state).toBe(TaskState.TASK_STATE_CANCELED);
  });
});

describe("A2A forks", () => {
  it("a message with metadata.fromEntryId continues its task's session from that entry, a new branch; without a task it is refused", async () => {
    const server = await startServer({ script: [[text("One.")], [text("Two.")], [text("Two, forked.")]] });
    const client = await clientOf(server.url);
    const first = (await client.sendMessage(a2aRequest("First"))) as Exclude<
      Awaited<ReturnType<Client["sendMessage"]>>,
      { messageId: string }
    >;
    const taskId = first.id;
    await client.sendMessage(a2aRequest("Second", taskId));
    const one = (await server.store.listEntries(taskId)).find(
      (e) => e.type === "message" && JSON.stringify(e.message.content).includes("One."),
    );
    const fork = a2aRequest("Second, again", taskId);
    const forked = await client.sendMessage({
      ...fork,
      message: { ...fork.message, taskId: "", metadata: { fromEntryId: one?.id } },
    });
    expect("id" in forked && forked.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const entries = await server.store.listEntries(taskId);
    const again = entries.find((e) => e.type === "message" && JSON.stringify(e.message.content).includes("Second, again"));
    expect(again?.parentId).toBe(one?.id);
    // The first branch is kept beside it: both user messages follow the first answer.
    expect(entries.filter((e) => e.parentId === one?.id)).toHaveLength(2);

    const lone = a2aRequest("Fork of nothing");
    await expect(
      client.sendMessage({ ...lone, message: { ...lone.message, metadata: { fromEntryId: one?.id } } }),
    ).rejects.toThrow(/fromEntryId/);
    expect((await server.store.listSessions({})).sessions).toHaveLength(1);
  });
});

describe("A2A task control", () => {
  it("CancelTask aborts the task's run: it reads as canceled, in ListTasks too, and cannot be canceled again", async () => {
    const gate = gateTool();
    const server = await startServer({ script: [[toolCall("gate", {}, { id: "g1" })], [text("never")]], tools: [gate.tool] });
    const client = await clientOf(server.url);
    const stream = client.sendMessageStream(a2aRequest("go"));
    const first = await stream.next();
    const taskId = first.value?.payload?.$case === "task" ? first.value.payload.value.id : "";
    await vi.waitFor(() => expect(gate.calls).toBe(1));
    expect((await client.getTask({ tenant: "", id: taskId })).status?.state).toBe(TaskState.TASK_STATE_WORKING);
    const canceled = await client.cancelTask({ tenant: "", id: taskId, metadata: undefined });
    expect(canceled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    const rest = await collect(stream);
    expect(states(rest).at(-1)).toBe(TaskState.TASK_STATE_CANCELED);
    const listed = await client.listTasks({ tenant: "", contextId: "", status: 0, pageToken: "" } as never);
    expect(listed.tasks.map((t) => [t.id, t.status?.state])).toEqual([[taskId, TaskState.TASK_STATE_CANCELED]]);
    await expect(client.cancelTask({ tenant: "", id: taskId, metadata: undefined })).rejects.toThrow(/ended already/);
  });
});

describe("A2A behind a token", () => {
  it("serves the agent card and /a2a only with the server's token", async () => {
    const server = await startServer({ script: [[text("never")]], server: { token: "secret" } });
    expect((await fetch(`${server.url}/.well-known/agent-card.json`)).status).toBe(401);
    expect((await fetch(`${server.url}/a2a`, { method: "POST", body: "{}" })).status).toBe(401);
    expect((await server.api("/.well-known/agent-card.json")).status).toBe(200);
  });

  it("acts as a project-limited token: its tasks only, another project's task does not exist, read cannot send", async () => {
    const server = await startServer({ script: [[text("Done in A.")], [text("title")]] });
    const projectB = join(server.cwd, "..", "other");
    mkdirSync(projectB);
    const inB = (await server.store.createSession({ cwd: projectB })).id;
    const runner = (await server.runtime.access.addToken({ scopes: ["run"], projects: [server.cwd] })).token;
    const client = await clientOf(server.url, runner);
    const task = (await client.sendMessage(a2aRequest("work in A"))) as { id: string; status?: { state: number } };
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect((await server.store.getSession(task.id))?.createdBy).toMatch(/^tok_/);
    await expect(client.getTask({ tenant: "", id: inB })).rejects.toThrow(/No task/);
    await expect(client.sendMessage(a2aRequest("hijack", inB))).rejects.toThrow(/No task/);
    await expect(client.cancelTask({ tenant: "", id: inB, metadata: undefined })).rejects.toThrow(/No task/);
    const listed = await client.listTasks({ tenant: "", contextId: "", status: 0, pageToken: "" } as never);
    expect(listed.tasks.map((t) => t.id)).toEqual([task.id]);
    const reader = (await server.runtime.access.addToken({ scopes: ["read"], projects: [server.cwd] })).token;
    const readOnly = await clientOf(server.url, reader);
    expect((await readOnly.getTask({ tenant: "", id: task.id })).id).toBe(task.id);
    await expect(readOnly.sendMessage(a2aRequest("more", task.id))).rejects.toThrow(/"run" scope/);
    // Nothing of B's session changed.
    expect((await server.store.listSessions({})).sessions.find((s) => s.id === inB)?.updatedAt).toBe(
      (await server.store.getSession(inB))?.updatedAt,
    );
  });
});
