import { TaskState } from "@a2a-js/sdk";
import { ClientFactory } from "@a2a-js/sdk/client";
import { type Entry, resolveConfig, type Store } from "@arbor/core";
import { type Script, text, toolCall } from "@arbor/testkit";
import { describe, expect, it, vi } from "vitest";
import { startSdkAgent } from "./helpers/a2a-sdk-agent.js";
import { gateTool, startServer, type TestServer } from "./helpers/server.js";

type Of<T extends Entry["type"]> = Extract<Entry, { type: T }>;
const entriesOf = <T extends Entry["type"]>(path: readonly Entry[], type: T): Of<T>[] =>
  path.filter((e): e is Of<T> => e.type === type);

/** A parent server whose arbor.json names `researcher` as a remote agent at `url`. */
function parentOf(url: string, script: Script, options: { token?: string; env?: Record<string, string> } = {}) {
  const a2a = { url, ...(options.token ? { token: options.token } : {}) };
  return startServer({
    script,
    runtime: {
      env: options.env ?? {},
      config: resolveConfig([{ source: "arbor.json", value: { agents: { researcher: { a2a } } } }]),
    },
  });
}

async function delegated(parent: TestServer, prompt = "Ask the researcher") {
  const run = parent.runtime.runs.run({ prompt });
  return { run, result: await run.result };
}

async function onlySubTrace(store: Store, parentId: string) {
  const { sessions } = await store.listSessions({ parentSessionId: parentId, limit: 10 });
  expect(sessions).toHaveLength(1);
  return sessions[0]!;
}

const DELEGATE = toolCall("delegate", { task: "What is the answer?", agent: "researcher" }, { id: "d1" });

describe("a remote agent over A2A as a sub-agent", () => {
  it("delegate sends the task over A2A and records the remote's answer and task id as a sub-trace", async () => {
    const remote = await startServer({ script: [[text("The answer is 42.", { chunks: 3 })], [text("title")]] });
    const parent = await parentOf(remote.url, [[DELEGATE], [text("The researcher says 42.")]]);
    const { result } = await delegated(parent);
    expect(result.status).toBe("done");
    expect(result.text).toBe("The researcher says 42.");

    const path = await parent.store.getActivePath(result.sessionId);
    const [batch] = entriesOf(path, "subagent_batch");
    const [outcome] = entriesOf(path, "subagent_result");
    expect(outcome).toMatchObject({ status: "completed", summary: "The answer is 42." });
    const sub = await onlySubTrace(parent.store, result.sessionId);
    expect(batch?.tasks).toEqual([{ task: "What is the answer?", subSessionId: sub.id }]);
    expect(sub).toMatchObject({ agentId: "researcher", agentType: "delegate", status: "completed" });

    // The sub-trace holds the task and the remote's answer, with the remote task it was.
    const subPath = await parent.store.getActivePath(sub.id);
    const answer = entriesOf(subPath, "message").find((e) => e.message.role === "assistant");
    expect(answer?.message).toMatchObject({ role: "assistant", model: "a2a/researcher" });
    const part = answer?.message.role === "assistant" ? answer.message.content[0] : undefined;
    expect(part).toMatchObject({ type: "text", text: "The answer is 42." });
    const a2a = (part as { providerMetadata?: { a2a?: { taskId: string; state: string } } }).providerMetadata?.a2a;
    expect(a2a?.state).toBe("completed");
    // That task is a session on the remote server, which got the task's words and nothing of the parent's.
    const remoteUser = entriesOf(await remote.store.getActivePath(a2a?.taskId ?? ""), "message")[0]?.message;
    expect(remoteUser).toMatchObject({ role: "user", content: [{ type: "text", text: "What is the answer?" }] });
    // The parent's model read the remote's answer as the tool's result.
    const results = entriesOf(path, "message").flatMap((e) => (e.message.role === "tool" ? e.message.content : []));
    expect(JSON.stringify(results)).toContain("The answer is 42.");
  });

  it("an abort of the parent cancels the remote task over A2A, and the sub-trace ends aborted", async () => {
    const gate = gateTool();
    const remote = await startServer({ script: [[toolCall("gate", {}, { id: "g1" })], [text("never")]], tools: [gate.tool] });
    const parent = await parentOf(remote.url, [[DELEGATE], [text("never")]]);
    const run = parent.runtime.runs.run({ prompt: "Ask the researcher" });
    await vi.waitFor(() => expect(gate.calls).toBe(1));
    run.abort();
    const result = await run.result;
    expect(result.status).toBe("aborted");
    const [task] = (await remote.store.listSessions({ limit: 10 })).sessions;
    const client = await new ClientFactory().createFromUrl(remote.url);
    expect((await client.getTask({ tenant: "", id: task?.id ?? "" })).status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    const sub = await onlySubTrace(parent.store, result.sessionId);
    expect(sub.status).toBe("aborted");
    // The sub-trace says which remote task it was, canceled.
    const answer = entriesOf(await parent.store.getActivePath(sub.id), "message").find((e) => e.message.role === "assistant");
    const part = answer?.message.role === "assistant" ? answer.message.content[0] : undefined;
    expect((part as { providerMetadata?: unknown })?.providerMetadata).toMatchObject({
      a2a: { taskId: task?.id, state: "canceled" },
    });
  });

  it("input-required on the remote comes back to the parent's model as the remote's question", async () => {
    const remote = await startServer({
      script: [[toolCall("question", { question: "Which database, PostgreSQL or SQLite?" }, { id: "q1" })], [text("never")]],
    });
    const parent = await parentOf(remote.url, [[DELEGATE], [text("I will ask the user.")]]);
    const { result } = await delegated(parent);
    expect(result.text).toBe("I will ask the user.");
    const [outcome] = entriesOf(await parent.store.getActivePath(result.sessionId), "subagent_result");
    expect(outcome?.summary).toMatch(/Remote agent "researcher" stopped to ask for input \(A2A task .+, input-required\)/);
    expect(outcome?.summary).toContain("Which database, PostgreSQL or SQLite?");
  });

  it("an unreachable remote is a remote_agent_unavailable result for the model, and nothing is started", async () => {
    const gone = await startServer({ script: [] });
    await gone.close();
    const parent = await parentOf(gone.url, [[DELEGATE], [text("It is down.")]]);
    const run = parent.runtime.runs.run({ prompt: "Ask the researcher" });
    const ends: { is_error: boolean; output: string }[] = [];
    for await (const event of run) if (event.type === "tool_end") ends.push(event);
    const result = await run.result;
    expect(result.text).toBe("It is down.");
    expect(ends[0]?.is_error).toBe(true);
    expect(ends[0]?.output).toMatch(/Remote agent "researcher" could not be reached at http:\/\/127\.0\.0\.1/);
    expect(ends[0]?.output).toContain("agents.researcher.a2a");
    const path = await parent.store.getActivePath(result.sessionId);
    // The tool's result carries the error's code for whoever reads the session.
    const failed = entriesOf(path, "message").flatMap((e) =>
      e.message.role === "tool" && e.message.error ? [e.message.error] : [],
    );
    expect(failed.map((e) => e.code)).toEqual(["remote_agent_unavailable"]);
    expect(entriesOf(path, "subagent_batch")).toHaveLength(0);
    expect((await parent.store.listSessions({ parentSessionId: result.sessionId, limit: 10 })).sessions).toHaveLength(0);
  });

  it("sends the token its config names; without its variable set the call says which to set", async () => {
    const remote = await startServer({ script: [[text("Behind a token.")], [text("title")]], server: { token: "s3cret" } });
    const token = "env:RESEARCH_TOKEN";
    const good = await parentOf(remote.url, [[DELEGATE], [text("ok")]], { token, env: { RESEARCH_TOKEN: "s3cret" } });
    const { result } = await delegated(good);
    const [outcome] = entriesOf(await good.store.getActivePath(result.sessionId), "subagent_result");
    expect(outcome).toMatchObject({ status: "completed", summary: "Behind a token." });

    const unset = await parentOf(remote.url, [[DELEGATE], [text("ok")]], { token });
    const run = unset.runtime.runs.run({ prompt: "Ask the researcher" });
    const outputs: string[] = [];
    for await (const event of run) if (event.type === "tool_end") outputs.push(event.output);
    expect(outputs[0]).toMatch(/RESEARCH_TOKEN \(agents\.researcher\.a2a\.token\), and RESEARCH_TOKEN is not set/);
    // A wrong token is refused by the remote: unavailable, with what to check.
    const wrong = await parentOf(remote.url, [[DELEGATE], [text("ok")]], { token, env: { RESEARCH_TOKEN: "nope" } });
    const refused = wrong.runtime.runs.run({ prompt: "Ask the researcher" });
    const said: string[] = [];
    for await (const event of refused) if (event.type === "tool_end") said.push(event.output);
    expect(said[0]).toMatch(/could not be reached .*401/);
  });

  it("a remote that does not stream gets SendMessage answered at once, then GetTask until its task settles", async () => {
    const remote = await startSdkAgent();
    const parent = await parentOf(remote.url, [[DELEGATE], [text("Polled.")]]);
    const run = parent.runtime.runs.run({ prompt: "Ask the researcher" });
    await vi.waitFor(() => expect(remote.received).toHaveLength(1));
    expect(remote.received[0]?.configuration?.returnImmediately).toBe(true);
    remote.finish("The polled answer.");
    const result = await run.result;
    expect(result.text).toBe("Polled.");
    const sub = await onlySubTrace(parent.store, result.sessionId);
    const answer = entriesOf(await parent.store.getActivePath(sub.id), "message").find((e) => e.message.role === "assistant");
    // Its working status is the sub-trace's reasoning; its artifact the answer, with the task it was.
    expect(answer?.message.role === "assistant" && answer.message.content).toMatchObject([
      { type: "reasoning", text: "Looking it up.\n" },
      { type: "text", text: "The polled answer.", providerMetadata: { a2a: { state: "completed" } } },
    ]);
  });

  it("an abort cancels a polled remote task with CancelTask", async () => {
    const remote = await startSdkAgent();
    const parent = await parentOf(remote.url, [[DELEGATE], [text("never")]]);
    const run = parent.runtime.runs.run({ prompt: "Ask the researcher" });
    // Cancel needs the task id, which the first answer carries: a poll shows the client has it.
    await vi.waitFor(() => expect(remote.methods).toContain("GetTask"), { timeout: 5000 });
    run.abort();
    expect((await run.result).status).toBe("aborted");
    expect(remote.methods).toContain("CancelTask");
    expect(remote.canceled).toHaveLength(1);
    const sub = await onlySubTrace(parent.store, run.sessionId);
    expect((await parent.store.getSession(sub.id))?.status).toBe("aborted");
  });

  it("an abort before the task's id has come back cancels the task once it comes", async () => {
    let sendTask = () => {};
    const remote = await startSdkAgent({ beforeTask: new Promise<void>((resolve) => (sendTask = resolve)) });
    const parent = await parentOf(remote.url, [[DELEGATE], [text("never")]]);
    const run = parent.runtime.runs.run({ prompt: "Ask the researcher" });
    // The remote has the task; the parent has not heard its id yet.
    await vi.waitFor(() => expect(remote.received).toHaveLength(1));
    run.abort();
    sendTask();
    expect((await run.result).status).toBe("aborted");
    // Left alone, the remote's task would work on for nobody.
    expect(remote.methods).toContain("CancelTask");
    expect(remote.canceled).toHaveLength(1);
  });
});
