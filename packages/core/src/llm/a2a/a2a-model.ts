import { randomUUID } from "node:crypto";
import { type AgentCard, Role, type SendMessageRequest, TaskState } from "@a2a-js/sdk";
import {
  type Client,
  ClientFactory,
  ClientFactoryOptions,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
  RestTransportFactory,
} from "@a2a-js/sdk/client";
import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4Content,
  LanguageModelV4StreamPart,
  LanguageModelV4Usage,
} from "@ai-sdk/provider";
import { ArborError } from "../../errors.js";
import { A2ATurn, isSettled, stateName } from "./a2a-turn.js";

export interface A2AConnection {
  /** The configured agent's name in arbor.json. */
  name: string;
  url: string;
  token: string | undefined;
  signal: AbortSignal;
}

/** How long reading the agent card may take, and a cancel of the remote task on abort. */
const CARD_TIMEOUT_MS = 30_000;
const CANCEL_TIMEOUT_MS = 10_000;
/** A remote may work for minutes without a word: a ping this often keeps the step's idle timer from ending it. */
const PING_MS = 5_000;
/** A non-streaming remote's task is read back this often until it settles. */
const POLL_MS = 1_000;

const NO_USAGE: LanguageModelV4Usage = {
  inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: undefined, text: undefined, reasoning: undefined },
};

function withToken(token: string | undefined): typeof fetch {
  if (token === undefined) return (input, init) => fetch(input, init);
  return (input, init) => {
    const headers = new Headers(init?.headers);
    headers.set("authorization", `Bearer ${token}`);
    return fetch(input, { ...init, headers });
  };
}

function causeOf(err: unknown): string {
  const cause = (err as { cause?: { code?: unknown; message?: unknown } } | undefined)?.cause;
  const detail = err instanceof Error ? err.message : String(err);
  return typeof cause?.code === "string" ? `${detail}: ${cause.code}` : detail;
}

/**
 * Reads the remote agent's card and makes its client; `remote_agent_unavailable` when the card cannot
 * be had (the server is down, the URL is not an A2A agent, the token is refused).
 */
export async function connectA2AAgent(connection: A2AConnection): Promise<LanguageModelV4> {
  const fetchImpl = withToken(connection.token);
  const options = ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
    transports: [new JsonRpcTransportFactory({ fetchImpl }), new RestTransportFactory({ fetchImpl })],
    cardResolver: new DefaultAgentCardResolver({
      fetchImpl: (input, init) =>
        fetchImpl(input, { ...init, signal: AbortSignal.any([connection.signal, AbortSignal.timeout(CARD_TIMEOUT_MS)]) }),
    }),
  });
  // A URL naming a .json file is the card itself; any other is the base the card is found under.
  const isCard = new URL(connection.url).pathname.endsWith(".json");
  let client: Client;
  let card: AgentCard;
  try {
    client = await new ClientFactory(options).createFromUrl(connection.url, isCard ? "" : undefined);
    card = await client.getAgentCard();
  } catch (err) {
    if (connection.signal.aborted) throw new ArborError("aborted", "The run was aborted.");
    throw new ArborError(
      "remote_agent_unavailable",
      `Remote agent "${connection.name}" could not be reached at ${connection.url} (${causeOf(err)}). ` +
        `Check agents.${connection.name}.a2a in arbor.json, that the agent is running, and its token.`,
    );
  }
  return a2aModel(connection.name, client, card.capabilities?.streaming === true);
}

/** The task the sub-run hands over: its last user message's text (the remote sees nothing else of Arbor's). */
function taskOf(options: LanguageModelV4CallOptions): string {
  for (let i = options.prompt.length - 1; i >= 0; i--) {
    const message = options.prompt[i]!;
    if (message.role !== "user") continue;
    return message.content.flatMap((p) => (p.type === "text" ? [p.text] : [])).join("\n");
  }
  return "";
}

function request(task: string, streaming: boolean): SendMessageRequest {
  return {
    tenant: "",
    message: {
      messageId: randomUUID(),
      contextId: "",
      taskId: "",
      role: Role.ROLE_USER,
      parts: [{ content: { $case: "text", value: task }, metadata: undefined, filename: "", mediaType: "text/plain" }],
      metadata: undefined,
      extensions: [],
      referenceTaskIds: [],
    },
    // Without streaming the task comes back at once and is read back until it settles, so it can be canceled.
    configuration: { acceptedOutputModes: [], taskPushNotificationConfig: undefined, returnImmediately: !streaming },
    metadata: undefined,
  };
}

/**
 * A remote A2A agent as the model of a sub-run: each call sends the task (`message/stream` when the
 * card offers streaming, else `message/send` and `tasks/get`) and streams back its artifacts and
 * messages as text, its status messages as reasoning, its task id on the text's provider metadata.
 * An abort cancels the remote task (`tasks/cancel`) before the stream ends. `input-required` ends the
 * call with the remote's question for the parent; `failed`, `rejected` or `canceled` are the call's error.
 */
function a2aModel(name: string, client: Client, streaming: boolean): LanguageModelV4 {
  const doStream = async (options: LanguageModelV4CallOptions) => {
    const abort = options.abortSignal ?? new AbortController().signal;
    const transport = new AbortController();
    let closed = false;
    let textOpen = false;
    let turn: A2ATurn;
    const stream = new ReadableStream<LanguageModelV4StreamPart>({
      start(controller) {
        const push = (part: LanguageModelV4StreamPart) => {
          if (!closed) controller.enqueue(part);
        };
        const meta = () => ({
          a2a: { agent: name, taskId: turn.taskId, contextId: turn.contextId, state: stateName(turn.state) },
        });
        turn = new A2ATurn({
          text(delta) {
            if (!textOpen) push({ type: "text-start", id: "answer", providerMetadata: meta() });
            textOpen = true;
            push({ type: "text-delta", id: "answer", delta });
          },
          note(delta) {
            push({ type: "reasoning-start", id: "status" });
            push({ type: "reasoning-delta", id: "status", delta });
            push({ type: "reasoning-end", id: "status" });
          },
        });
        // The text block always closes with the task's ids and state, so the sub-trace records them.
        const closeText = (extra = "") => {
          if (!textOpen) push({ type: "text-start", id: "answer", providerMetadata: meta() });
          if (extra) push({ type: "text-delta", id: "answer", delta: turn.answered ? `\n\n${extra}` : extra });
          push({ type: "text-end", id: "answer", providerMetadata: meta() });
        };
        const ping = setInterval(() => push({ type: "ping" }), PING_MS);
        const end = (last?: LanguageModelV4StreamPart) => {
          if (closed) return;
          clearInterval(ping);
          abort.removeEventListener("abort", onAbort);
          if (last) push(last);
          closed = true;
          controller.close();
        };
        /** Settles when the exchange ends, however it ends. */
        let exchanged: Promise<unknown> = Promise.resolve();
        const onAbort = () => {
          // Canceled over A2A before the stream ends, so the remote stops too. An abort that comes before the
          // task's id (right after the task was sent) waits for it with the exchange still open: closing it
          // would not stop the remote, whose task would work on for nobody.
          let limit: ReturnType<typeof setTimeout> | undefined;
          // The exchange fails once the cancel closes it: that ends the wait as well, and is no error here.
          const giveUp = Promise.race([
            exchanged,
            new Promise((resolve) => (limit = setTimeout(resolve, CANCEL_TIMEOUT_MS))),
          ]).catch(() => undefined);
          const cancel = turn
            .idKnown(giveUp)
            .then((taskId) =>
              taskId
                ? client.cancelTask(
                    { tenant: "", id: taskId, metadata: undefined },
                    { signal: AbortSignal.timeout(CANCEL_TIMEOUT_MS) },
                  )
                : undefined,
            )
            .catch(() => undefined)
            .finally(() => clearTimeout(limit));
          void cancel.then((task) => {
            transport.abort();
            if (task) turn.state = task.status?.state ?? turn.state;
            // The step keeps what arrived, and with it which remote task this was and how it ended.
            if (turn.taskId) closeText();
            end();
          });
        };
        abort.addEventListener("abort", onAbort, { once: true });
        push({ type: "stream-start", warnings: [] });
        if (abort.aborted) {
          end();
          return;
        }
        exchanged = exchange(client, taskOf(options), streaming, turn, transport.signal);
        exchanged
          .then(() => {
            if (abort.aborted) return;
            closeText(closingText(name, turn));
            const failure = outcomeError(name, turn);
            end(failure ? { type: "error", error: failure } : finish(turn));
          })
          .catch((err: unknown) => {
            if (abort.aborted) return;
            // A plain error: a transport failure mid-task is not retried, as a retry would hand the task over twice.
            end({
              type: "error",
              error: new Error(`The A2A exchange with remote agent "${name}" failed (${causeOf(err)}).`),
            });
          });
      },
      cancel() {
        closed = true;
        transport.abort();
      },
    });
    return { stream };
  };
  return {
    specificationVersion: "v4",
    provider: "a2a",
    modelId: name,
    supportedUrls: {},
    doStream,
    async doGenerate(options) {
      const { stream } = await doStream(options);
      let text = "";
      let finishPart: Extract<LanguageModelV4StreamPart, { type: "finish" }> | undefined;
      for await (const part of stream) {
        if (part.type === "text-delta") text += part.delta;
        else if (part.type === "error") throw part.error;
        else if (part.type === "finish") finishPart = part;
      }
      const content: LanguageModelV4Content[] = text ? [{ type: "text", text }] : [];
      return {
        content,
        finishReason: finishPart?.finishReason ?? { unified: "other", raw: undefined },
        usage: NO_USAGE,
        warnings: [],
      };
    },
  };
}

/** Sends the task and feeds `turn` until the remote's task settles (or it replies with a message). */
async function exchange(client: Client, task: string, streaming: boolean, turn: A2ATurn, signal: AbortSignal): Promise<void> {
  if (streaming) {
    for await (const response of client.sendMessageStream(request(task, true), { signal })) turn.take(response);
    return;
  }
  const result = await client.sendMessage(request(task, false), { signal });
  if ("messageId" in result) {
    turn.message(result);
    return;
  }
  turn.task(result);
  while (!isSettled(turn.state)) {
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    if (signal.aborted) return;
    turn.task(await client.getTask({ tenant: "", id: turn.taskId }, { signal }));
  }
}

/** The text the call ends with beyond what streamed: a settled status's words (the answer, or the question). */
function closingText(name: string, turn: A2ATurn): string {
  const state = turn.state;
  if (state === TaskState.TASK_STATE_INPUT_REQUIRED || state === TaskState.TASK_STATE_AUTH_REQUIRED) {
    const wants = state === TaskState.TASK_STATE_AUTH_REQUIRED ? "authorization" : "input";
    return [
      `[Remote agent "${name}" stopped to ask for ${wants} (A2A task ${turn.taskId}, ${stateName(state)}): ` +
        `${turn.statusText || "it did not say what it needs"}]`,
      "[Its task is left waiting. Delegate again with the answer and everything the task needs, or do without.]",
    ].join("\n");
  }
  if (!turn.answered && state === TaskState.TASK_STATE_COMPLETED) return turn.statusText;
  return "";
}

/** A task the remote ended without an answer is the call's failure, in words the parent model reads. */
function outcomeError(name: string, turn: A2ATurn): Error | undefined {
  if (turn.replied) return undefined;
  const state = turn.state;
  const said = turn.statusText ? `: ${turn.statusText}` : "";
  if (
    state === TaskState.TASK_STATE_FAILED ||
    state === TaskState.TASK_STATE_REJECTED ||
    state === TaskState.TASK_STATE_CANCELED
  ) {
    return new Error(`Remote agent "${name}" ended its task ${stateName(state)} (A2A task ${turn.taskId})${said}.`);
  }
  if (!isSettled(state)) {
    return new Error(
      `The A2A stream from remote agent "${name}" ended while its task ${turn.taskId || "(no id)"} was ${stateName(state)}.`,
    );
  }
  return undefined;
}

function finish(turn: A2ATurn): LanguageModelV4StreamPart {
  return { type: "finish", usage: NO_USAGE, finishReason: { unified: "stop", raw: stateName(turn.state) } };
}
