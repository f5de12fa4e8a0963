import * as acp from "@agentclientprotocol/sdk";
import type { Config, Runtime } from "@arbor/core";
import { createAcpAgent } from "../../src/index.js";
import type { FakeEditor } from "./fake-editor.js";
import { onCleanup, type TestServer } from "./server.js";

export type Reply = "once" | "always" | "reject" | "approve";
export type ConfigLike = Config["mcp"]["servers"];

/** An ACP client (the SDK's own) connected in process to Arbor's agent over `server`'s runtime. */
export function connect(
  server: TestServer,
  answer: (req: acp.RequestPermissionRequest) => Reply = () => "once",
  runtimeWith?: (servers: ConfigLike) => Runtime,
  editor?: FakeEditor,
) {
  const updates: acp.SessionNotification[] = [];
  const asked: acp.RequestPermissionRequest[] = [];
  const watchers: Array<{ match: (n: acp.SessionNotification) => boolean; resolve: () => void }> = [];
  const app = acp
    .client({ name: "test" })
    .onNotification("session/update", ({ params }) => {
      updates.push(params);
      for (const w of watchers.filter((w) => w.match(params))) w.resolve();
    })
    .onRequest("session/request_permission", ({ params }) => {
      asked.push(params);
      return { outcome: { outcome: "selected", optionId: answer(params) } };
    });
  const connection = (editor ? editor.serve(app) : app).connect(
    createAcpAgent({ runtime: server.runtime, ...(runtimeWith ? { runtimeWith } : {}) }),
  );
  onCleanup(() => connection.close());
  const agent = connection.agent;
  return {
    agent,
    updates,
    asked,
    /** Resolves once an update matching `match` has arrived. */
    seen(match: (n: acp.SessionNotification) => boolean): Promise<void> {
      if (updates.some(match)) return Promise.resolve();
      return new Promise((resolve) => watchers.push({ match, resolve }));
    },
    async init() {
      return agent.request("initialize", {
        protocolVersion: acp.PROTOCOL_VERSION,
        clientCapabilities: editor?.capabilities ?? {},
      });
    },
    async newSession() {
      return agent.request("session/new", { cwd: server.cwd, mcpServers: [] });
    },
    prompt(sessionId: string, message: string) {
      return agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: message }] });
    },
  };
}

/** A client from `connect`, initialized, with a new session over `server`'s workspace: where most tests start. */
export async function connectedSession(...args: Parameters<typeof connect>) {
  const client = connect(...args);
  await client.init();
  const { sessionId } = await client.newSession();
  return { client, sessionId };
}

export const kinds = (updates: acp.SessionNotification[]) => updates.map((n) => n.update.sessionUpdate);
export const textOf = (
  updates: acp.SessionNotification[],
  kind: "agent_message_chunk" | "agent_thought_chunk" | "user_message_chunk",
) =>
  updates
    .map((n) => n.update)
    .flatMap((u) => (u.sessionUpdate === kind && u.content.type === "text" ? [u.content.text] : []))
    .join("");

/** The JSON-RPC error a request was refused with. */
export async function refusal(request: Promise<unknown>): Promise<{ code: number; message: string; data?: unknown }> {
  try {
    await request;
  } catch (err) {
    if (err instanceof acp.RequestError) return { code: err.code, message: err.message, data: err.data };
    throw err;
  }
  throw new Error("the request was not refused");
}
