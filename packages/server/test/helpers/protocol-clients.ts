import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ClientFactory } from "@a2a-js/sdk/client";
import { HttpAgent } from "@ag-ui/client";
import { openStore, type RunEvent } from "@arbor/core";
import type { Script } from "@arbor/testkit";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import {
  AbstractChat,
  type ChatInit,
  type ChatState,
  type ChatStatus,
  DefaultChatTransport,
  lastAssistantMessageIsCompleteWithApprovalResponses,
  type UIMessage,
} from "ai";
import OpenAI from "openai";
import { textOfResult } from "./mcp-client.js";
import { responsesClient } from "./open-responses.js";
import { errorOf, onCleanup, startServer, tempDir } from "./server.js";
import { readSse, tokenText } from "./sse.js";

/** What the conformance suite asks of one protocol, through that protocol's own client. */
export interface ProtocolClient {
  /** Sends `prompt` as the protocol's input; the answer's text as the client received it. */
  answer(prompt: string): Promise<string>;
  /** Sends `prompt` to a run that asks permission; shows the ask as the client got it, allows it, and returns the answer's text. */
  approve(prompt: string): Promise<{ asked: string; text: string }>;
  /**
   * Sends `prompt` to a run whose agent asks a question (which database, PostgreSQL or SQLite); shows
   * the question as the client got it, answers "SQLite" in the protocol's own shape, and returns the
   * answer's text. Absent where the protocol has no shape for an answer (it says where to answer instead).
   */
  question?(prompt: string): Promise<{ asked: string; text: string }>;
  /** Sends input the protocol refuses; the error as the client reports it. */
  refuse(): Promise<string>;
  /** How many sessions the server's store holds. */
  sessions(): Promise<number>;
}

/** A protocol's client, opened against a fresh server whose scripted model plays `script` in a workspace holding `files`. */
export interface ClientDriver {
  /** The client library this driver uses. */
  client: string;
  /** Its clients implement `question`: the protocol carries a question's answer. */
  answersQuestions?: true;
  open(script: Script, files: Record<string, string>): Promise<ProtocolClient>;
}

const writeFiles = (cwd: string, files: Record<string, string>) => {
  for (const [name, text] of Object.entries(files)) writeFileSync(join(cwd, name), text);
};

/** A fresh server playing `script` in a workspace holding `files`, and a count of its store's sessions. */
async function serverWith(script: Script, files: Record<string, string>) {
  const server = await startServer({ script });
  writeFiles(server.cwd, files);
  return { server, sessions: async () => (await server.store.listSessions({})).sessions.length };
}

/** The run stream read with plain fetch; asks answered with the API's permission route. */
const sseDriver: ClientDriver = {
  client: "fetch + SSE",
  answersQuestions: true,
  async open(script, files) {
    const { server, sessions } = await serverWith(script, files);
    /** Chats, answering each ask of `type` as `answer` says; gives what was asked and the answer's text. */
    const askAndReply = async <T extends RunEvent["type"]>(
      prompt: string,
      type: T,
      answer: (e: Extract<RunEvent, { type: T }>) => { asked: string; reply: Promise<Response> },
    ) => {
      let asked = "";
      const replies: Promise<Response>[] = [];
      const events = await readSse(await server.api("/api/chat", { json: { message: prompt } }), (m) => {
        if (m.event.type !== type) return undefined;
        const answered = answer(m.event as Extract<RunEvent, { type: T }>);
        asked = answered.asked;
        replies.push(answered.reply);
        return undefined;
      });
      for (const reply of await Promise.all(replies)) if (reply.status !== 200) throw new Error(await reply.text());
      return { asked, text: tokenText(events) };
    };
    return {
      answer: async (prompt) => tokenText(await readSse(await server.api("/api/chat", { json: { message: prompt } }))),
      approve: (prompt) =>
        askAndReply(prompt, "permission_request", (e) => ({
          asked: `${e.permission} ${e.patterns.join(" ")}`,
          reply: server.api(`/api/permissions/${e.id}`, { json: { reply: "once" } }),
        })),
      question: (prompt) =>
        askAndReply(prompt, "question_request", (e) => ({
          asked: `${e.question} ${(e.options ?? []).map((o) => o.label).join(" ")}`,
          reply: server.api(`/api/asks/${e.id}`, { json: { answers: ["SQLite"] } }),
        })),
      async refuse() {
        const err = await errorOf(await server.api("/api/chat", { json: { message: "" } }));
        return `${err.status} ${err.code}: ${err.message}`;
      },
      sessions,
    };
  },
};

/** A chat's state as a plain array: what `@ai-sdk/react`'s Chat keeps in React state. */
class ArrayState implements ChatState<UIMessage> {
  status: ChatStatus = "ready";
  error: Error | undefined = undefined;
  messages: UIMessage[] = [];
  pushMessage = (message: UIMessage) => {
    this.messages = [...this.messages, message];
  };
  popMessage = () => {
    this.messages = this.messages.slice(0, -1);
  };
  replaceMessage = (index: number, message: UIMessage) => {
    this.messages = this.messages.map((m, i) => (i === index ? message : m));
  };
  snapshot = <T>(thing: T): T => structuredClone(thing);
}

/** The `ai` package's own chat client (the base of `useChat`), with the transport `useChat` uses by default. */
class TestChat extends AbstractChat<UIMessage> {
  constructor(init: Omit<ChatInit<UIMessage>, "messages">) {
    super({ ...init, state: new ArrayState() });
  }
}

const textOfMessage = (message: UIMessage | undefined) =>
  (message?.parts ?? []).flatMap((p) => (p.type === "text" ? [p.text] : [])).join("");

const uiChatDriver: ClientDriver = {
  client: "ai AbstractChat + DefaultChatTransport",
  async open(script, files) {
    const { server, sessions } = await serverWith(script, files);
    const chat = (id: string, onFinish?: () => void) =>
      new TestChat({
        id,
        transport: new DefaultChatTransport({ api: `${server.url}/api/ui/chat` }),
        sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
        ...(onFinish ? { onFinish } : {}),
      });
    return {
      async answer(prompt) {
        const c = chat("chat-answer");
        await c.sendMessage({ text: prompt });
        if (c.error) throw c.error;
        return textOfMessage(c.lastMessage);
      },
      async approve(prompt) {
        let finished = () => {};
        const c = chat("chat-approve", () => finished());
        await c.sendMessage({ text: prompt });
        const part = c.lastMessage?.parts.find((p) => p.type === "dynamic-tool" && p.state === "approval-requested");
        if (part?.type !== "dynamic-tool" || part.state !== "approval-requested") {
          throw new Error(`no approval request in ${JSON.stringify(c.lastMessage)}`);
        }
        const continued = new Promise<void>((resolve) => {
          finished = resolve;
        });
        // As a page's Allow button does: the chat sends the answer by itself and reads the rest of the run.
        await c.addToolApprovalResponse({ id: part.approval.id, approved: true });
        await continued;
        if (c.error) throw c.error;
        return { asked: `${part.toolName} ${JSON.stringify(part.input)}`, text: textOfMessage(c.lastMessage) };
      },
      async refuse() {
        const c = chat("../not-an-id");
        await c.sendMessage({ text: "hi" });
        if (c.status !== "error" || !c.error) throw new Error(`expected an error, got status ${c.status}`);
        return c.error.message;
      },
      sessions,
    };
  },
};

/** The MCP tools through the SDK's Client, over `transport`; `sessions` counts the server's sessions. */
async function mcpClient(transport: Transport, sessions: () => Promise<number>): Promise<ProtocolClient> {
  const client = new Client({ name: "conformance", version: "1.0.0" });
  await client.connect(transport);
  // Closing a stdio client ends its server process.
  onCleanup(() => client.close());
  const call = async (name: string, args: Record<string, unknown>, onProgress?: (message: string) => void) =>
    (await client.callTool(
      { name, arguments: args },
      undefined,
      onProgress ? { onprogress: (p) => onProgress(p.message ?? "") } : {},
    )) as CallToolResult;
  return {
    async answer(prompt) {
      const result = await call("run_prompt", { prompt });
      if (result.isError) throw new Error(textOfResult(result));
      return textOfResult(result);
    },
    async approve(prompt) {
      let asked = "";
      const answers: Promise<CallToolResult>[] = [];
      const result = await call("run_prompt", { prompt }, (message) => {
        const id = /answer_permission id=(\S+)/.exec(message)?.[1];
        if (id === undefined) return;
        asked = message;
        answers.push(call("answer_permission", { id, reply: "once" }));
      });
      for (const answered of await Promise.all(answers)) if (answered.isError) throw new Error(textOfResult(answered));
      return { asked, text: textOfResult(result) };
    },
    async refuse() {
      try {
        const result = await call("run_prompt", { prompt: "hi", session_id: "not an id" });
        if (!result.isError) throw new Error(`expected an error, got ${JSON.stringify(result)}`);
        return textOfResult(result);
      } catch (err) {
        return (err as Error).message;
      }
    },
    sessions,
  };
}

const mcpHttpDriver: ClientDriver = {
  client: "@modelcontextprotocol/sdk Client over Streamable HTTP",
  async open(script, files) {
    const { server, sessions } = await serverWith(script, files);
    const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`));
    return mcpClient(transport, sessions);
  },
};

const STDIO_SERVER = fileURLToPath(new URL("../fixtures/mcp-stdio-server.mjs", import.meta.url));

const mcpStdioDriver: ClientDriver = {
  client: "@modelcontextprotocol/sdk Client over stdio",
  async open(script, files) {
    const root = tempDir();
    const [store, cwd, home] = ["store", "work", "home"].map((name) => join(root, name)) as [string, string, string];
    mkdirSync(cwd);
    mkdirSync(home);
    writeFiles(cwd, files);
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [STDIO_SERVER, store, cwd, home, JSON.stringify(script)],
      stderr: "pipe",
    });
    return mcpClient(transport, async () => {
      const reader = await openStore(store);
      try {
        return (await reader.listSessions({})).sessions.length;
      } finally {
        await reader.close();
      }
    });
  },
};

/** The official `openai` client against `/v1`: asks come as `mcp_approval_request` items, answered in the next request. */
const openResponsesDriver: ClientDriver = {
  client: "openai (official client)",
  async open(script, files) {
    const { server, sessions } = await serverWith(script, files);
    const openai = responsesClient(server);
    return {
      answer: async (prompt) => (await openai.responses.create({ model: "build", input: prompt })).output_text,
      async approve(prompt) {
        const first = await openai.responses.create({ model: "build", input: prompt });
        const ask = first.output.find((i) => i.type === "mcp_approval_request");
        if (ask?.type !== "mcp_approval_request") throw new Error(`no approval request in ${JSON.stringify(first.output)}`);
        const stream = openai.responses.stream({
          model: "build",
          previous_response_id: first.id,
          input: [{ type: "mcp_approval_response", approval_request_id: ask.id, approve: true }],
        });
        return { asked: `${ask.name} ${ask.arguments}`, text: (await stream.finalResponse()).output_text };
      },
      async refuse() {
        const err = await openai.responses.create({ model: "build", input: "" }).catch((e: unknown) => e);
        if (!(err instanceof OpenAI.APIError)) throw new Error(`expected an error, got ${JSON.stringify(err)}`);
        return `${err.status} ${err.code}: ${(err.error as { message?: string } | undefined)?.message ?? err.message}`;
      },
      sessions,
    };
  },
};

/** A2A over JSON-RPC with the SDK's client, found through the agent card; an ask is input-required, answered by "yes". */
const a2aDriver: ClientDriver = {
  client: "@a2a-js/sdk Client over JSON-RPC",
  answersQuestions: true,
  async open(script, files) {
    const { server, sessions } = await serverWith(script, files);
    const client = await new ClientFactory().createFromUrl(server.url);
    const request = (words: string, taskId = "") => ({
      tenant: "",
      message: {
        messageId: `m-${words.length}-${taskId}`,
        contextId: taskId,
        taskId,
        role: 1,
        parts: [
          { content: { $case: "text" as const, value: words }, metadata: undefined, filename: "", mediaType: "text/plain" },
        ],
        metadata: undefined,
        extensions: [],
        referenceTaskIds: [],
      },
      configuration: undefined,
      metadata: undefined,
    });
    const answerOf = (task: unknown) => {
      const artifacts = (task as { artifacts: { name: string; parts: { content?: { $case: string; value: unknown } }[] }[] })
        .artifacts;
      const parts = artifacts.find((a) => a.name === "answer")?.parts ?? [];
      return parts.map((p) => (p.content?.$case === "text" ? String(p.content.value) : "")).join("");
    };
    /** Sends the prompt, reads the input the task requires, and continues the task with `reply`. */
    const inputRequired = async (prompt: string, reply: string) => {
      const first = (await client.sendMessage(request(prompt))) as {
        id: string;
        status?: { message?: { parts: { content?: { $case: string; value: unknown } }[] } };
      };
      const asked = (first.status?.message?.parts ?? [])
        .map((p) => (p.content?.$case === "text" ? String(p.content.value) : ""))
        .join("");
      return { asked, text: answerOf(await client.sendMessage(request(reply, first.id))) };
    };
    return {
      answer: async (prompt) => answerOf(await client.sendMessage(request(prompt))),
      approve: (prompt) => inputRequired(prompt, "yes"),
      question: (prompt) => inputRequired(prompt, "SQLite"),
      async refuse() {
        return client.sendMessage(request("")).then(
          () => "accepted",
          (err: Error) => err.message,
        );
      },
      sessions,
    };
  },
};

/** `@ag-ui/client`'s HttpAgent: interrupts answered by the next run's `resume`. */
const agUiDriver: ClientDriver = {
  client: "@ag-ui/client HttpAgent",
  answersQuestions: true,
  async open(script, files) {
    const { server, sessions } = await serverWith(script, files);
    const agent = (threadId: string) => new HttpAgent({ url: `${server.url}/api/ag-ui`, threadId });
    const say = (a: HttpAgent, prompt: string) => a.addMessage({ id: `u-${a.messages.length}`, role: "user", content: prompt });
    const run = async (a: HttpAgent, resume?: Parameters<HttpAgent["runAgent"]>[0]) => {
      let text = "";
      await a.runAgent(resume, {
        onTextMessageContentEvent: ({ event }) => {
          text += event.delta;
        },
      });
      return text;
    };
    /** Runs the prompt on a thread of its own to its first interrupt; `resume` answers it with `payload`. */
    const interrupted = async (threadId: string, prompt: string) => {
      const a = agent(threadId);
      say(a, prompt);
      await run(a);
      const interrupt = a.pendingInterrupts[0];
      if (!interrupt) throw new Error("the run finished without an interrupt");
      const resume = (payload: unknown) => run(a, { resume: [{ interruptId: interrupt.id, status: "resolved", payload }] });
      return { interrupt, resume };
    };
    return {
      async answer(prompt) {
        const a = agent("agui-answer");
        say(a, prompt);
        return run(a);
      },
      async approve(prompt) {
        const { interrupt, resume } = await interrupted("agui-approve", prompt);
        return { asked: interrupt.message ?? "", text: await resume({ reply: "once" }) };
      },
      async question(prompt) {
        const { interrupt, resume } = await interrupted("agui-question", prompt);
        const options = (interrupt.metadata as { options?: { label: string }[] } | undefined)?.options ?? [];
        const text = await resume({ answers: ["SQLite"] });
        return { asked: `${interrupt.message ?? ""} ${options.map((o) => o.label).join(" ")}`, text };
      },
      async refuse() {
        const a = agent("agui-refuse");
        return run(a).then(
          () => "accepted",
          (err: Error) => err.message,
        );
      },
      sessions,
    };
  },
};

/** Each registered protocol's clients, by the protocol's name: a protocol without one fails the suite. */
export const PROTOCOL_CLIENTS: Record<string, readonly ClientDriver[]> = {
  "http-chat": [sseDriver],
  "ui-chat": [uiChatDriver],
  mcp: [mcpHttpDriver, mcpStdioDriver],
  "open-responses": [openResponsesDriver],
  a2a: [a2aDriver],
  "ag-ui": [agUiDriver],
};
