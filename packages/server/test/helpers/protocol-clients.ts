import { ClientFactory } from "@a2a-js/sdk/client";
import { HttpAgent } from "@ag-ui/client";
import type { RunEvent } from "@arbor/core";
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
import { responsesClient } from "./open-responses.js";
import { type ClientDriver, serverWith } from "./protocol-client.js";
import { mcpHttpDriver, mcpStdioDriver } from "./protocol-clients-mcp.js";
import { errorOf } from "./server.js";
import { readSse, tokenText } from "./sse.js";

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
export class TestChat extends AbstractChat<UIMessage> {
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

/** A message to an A2A agent as the SDK's client sends it: `words` as one text part, continuing `taskId` when given. */
export const a2aRequest = (words: string, taskId = "") => ({
  tenant: "",
  message: {
    messageId: `m-${words.length}-${taskId}`,
    contextId: taskId,
    taskId,
    role: 1,
    parts: [{ content: { $case: "text" as const, value: words }, metadata: undefined, filename: "", mediaType: "text/plain" }],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  },
  configuration: undefined,
  metadata: undefined,
});

/** A2A over JSON-RPC with the SDK's client, found through the agent card; an ask is input-required, answered by "yes". */
const a2aDriver: ClientDriver = {
  client: "@a2a-js/sdk Client over JSON-RPC",
  answersQuestions: true,
  async open(script, files) {
    const { server, sessions } = await serverWith(script, files);
    const client = await new ClientFactory().createFromUrl(server.url);
    const request = a2aRequest;
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
