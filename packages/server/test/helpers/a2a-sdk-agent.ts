import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { AgentCard, type SendMessageRequest, TaskState } from "@a2a-js/sdk";
import {
  type AgentExecutor,
  DefaultRequestHandler,
  InMemoryTaskStore,
  JsonRpcTransportHandler,
  ServerCallContext,
} from "@a2a-js/sdk/server";
import { onCleanup } from "./server.js";

/** An A2A agent made with the SDK's own server, whose card says it does not stream (Arbor's does). */
export interface SdkAgent {
  url: string;
  /** The requests its executor was handed, in order. */
  received: SendMessageRequest[];
  /** Task ids the client asked to cancel. */
  canceled: string[];
  /** The JSON-RPC methods called, in order. */
  methods: string[];
  /** Lets the task waiting in the executor finish with `answer` as its artifact. */
  finish(answer: string): void;
}

const status = (state: TaskState, text?: string) => ({
  state,
  message:
    text === undefined
      ? undefined
      : {
          messageId: `s-${state}`,
          contextId: "",
          taskId: "",
          role: 2,
          parts: [
            { content: { $case: "text" as const, value: text }, metadata: undefined, filename: "", mediaType: "text/plain" },
          ],
          metadata: undefined,
          extensions: [],
          referenceTaskIds: [],
        },
  timestamp: undefined,
});

/**
 * A non-streaming agent on 127.0.0.1: each task reports "Looking it up." while working, then waits
 * for `finish` (or a cancel) before it completes. `beforeTask` holds the first answer (the task, with
 * its id) until it settles. Stopped after the current test.
 */
export async function startSdkAgent(options: { beforeTask?: Promise<void> } = {}): Promise<SdkAgent> {
  const waiting: Array<(answer: string) => void> = [];
  const agent: SdkAgent = {
    url: "",
    received: [],
    canceled: [],
    methods: [],
    finish(answer) {
      const next = waiting.shift();
      if (!next) throw new Error("No task is waiting.");
      next(answer);
    },
  };
  const executor: AgentExecutor = {
    async execute(ctx, bus) {
      agent.received.push(ctx.request);
      const ids = { taskId: ctx.taskId, contextId: ctx.contextId, metadata: undefined };
      await options.beforeTask;
      bus.publish({
        kind: "task",
        data: {
          id: ctx.taskId,
          contextId: ctx.contextId,
          status: status(TaskState.TASK_STATE_WORKING, "Looking it up."),
          artifacts: [],
          history: [],
          metadata: undefined,
        },
      } as never);
      const answer = await new Promise<string>((resolve) => waiting.push(resolve));
      if (agent.canceled.includes(ctx.taskId)) return;
      const part = {
        content: { $case: "text" as const, value: answer },
        metadata: undefined,
        filename: "",
        mediaType: "text/plain",
      };
      const artifact = { artifactId: "a1", name: "answer", description: "", parts: [part], metadata: undefined, extensions: [] };
      bus.publish({ kind: "artifactUpdate", data: { ...ids, artifact, append: false, lastChunk: true } } as never);
      bus.publish({ kind: "statusUpdate", data: { ...ids, status: status(TaskState.TASK_STATE_COMPLETED) } } as never);
      bus.finished();
    },
    async cancelTask(taskId, bus) {
      agent.canceled.push(taskId);
      bus.publish({
        kind: "statusUpdate",
        data: { taskId, contextId: taskId, status: status(TaskState.TASK_STATE_CANCELED), metadata: undefined },
      } as never);
      bus.finished();
      waiting.shift()?.("");
    },
  };
  let transport: JsonRpcTransportHandler | undefined;
  let card: AgentCard | undefined;
  const server = createServer(async (req, res) => {
    if (req.method === "GET" && req.url === "/.well-known/agent-card.json") {
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify(AgentCard.toJSON(card as AgentCard)));
      return;
    }
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString("utf8");
    agent.methods.push(String((JSON.parse(body) as { method?: unknown }).method));
    const answer = await transport!.handle(body, new ServerCallContext());
    res.setHeader("content-type", "application/json");
    res.end(JSON.stringify(answer));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  agent.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  card = {
    name: "Polling agent",
    description: "Answers without streaming.",
    supportedInterfaces: [{ url: `${agent.url}/a2a`, protocolBinding: "JSONRPC", tenant: "", protocolVersion: "1.0" }],
    provider: undefined,
    version: "1.0.0",
    capabilities: { streaming: false, pushNotifications: false, extensions: [], extendedAgentCard: false },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["text/plain"],
    skills: [],
    signatures: [],
  } as AgentCard;
  transport = new JsonRpcTransportHandler(new DefaultRequestHandler(card, new InMemoryTaskStore(), executor));
  onCleanup(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return agent;
}
