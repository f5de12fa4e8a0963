import * as acp from "@agentclientprotocol/sdk";
import type { Config, Runtime } from "@arbor/core";
import { createAcpAgent } from "../../src/index.js";
import { onCleanup, type TestServer } from "./server.js";

export type Reply = "once" | "always" | "reject" | "approve";
export type ConfigLike = Config["mcp"]["servers"];

/** A command the editor's terminal was asked to run, and what became of it. */
export interface EditorTerminal {
  id: string;
  request: acp.CreateTerminalRequest;
  killed: boolean;
  released: boolean;
}

/**
 * An editor offering `fs/*` and `terminal/*`, all in memory: files are its buffers (nothing on disk),
 * and its terminals run nothing: each prints what `output` says for its command and exits with
 * `exitCode`, or, when `hangs` says so, runs until killed.
 */
export class FakeEditor {
  readonly buffers = new Map<string, string>();
  readonly reads: string[] = [];
  readonly writes: Array<{ path: string; content: string }> = [];
  readonly terminals: EditorTerminal[] = [];
  output: (command: string) => string = (command) => `editor ran: ${command}\n`;
  exitCode = 0;
  hangs: (command: string) => boolean = () => false;
  private readonly exits = new Map<
    string,
    { exit: (status: acp.TerminalExitStatus) => void; done: Promise<acp.TerminalExitStatus> }
  >();

  constructor(
    readonly capabilities: acp.ClientCapabilities = { fs: { readTextFile: true, writeTextFile: true }, terminal: true },
  ) {}

  /** The editor's handlers on its client app. */
  serve(app: acp.ClientApp): acp.ClientApp {
    return app
      .onRequest("fs/read_text_file", ({ params }) => {
        this.reads.push(params.path);
        const content = this.buffers.get(params.path);
        if (content === undefined) throw acp.RequestError.resourceNotFound(params.path);
        return { content };
      })
      .onRequest("fs/write_text_file", ({ params }) => {
        this.writes.push({ path: params.path, content: params.content });
        this.buffers.set(params.path, params.content);
        return {};
      })
      .onRequest("terminal/create", ({ params }) => {
        const id = `term-${this.terminals.length + 1}`;
        this.terminals.push({ id, request: params, killed: false, released: false });
        let exit!: (status: acp.TerminalExitStatus) => void;
        const done = new Promise<acp.TerminalExitStatus>((resolve) => {
          exit = resolve;
        });
        this.exits.set(id, { exit, done });
        if (!this.hangs(commandOf(params))) exit({ exitCode: this.exitCode, signal: null });
        return { terminalId: id };
      })
      .onRequest("terminal/wait_for_exit", async ({ params }) => {
        const status = await this.exits.get(params.terminalId)!.done;
        return { exitCode: status.exitCode ?? null, signal: status.signal ?? null };
      })
      .onRequest("terminal/output", async ({ params }) => {
        const terminal = this.terminal(params.terminalId);
        const exits = this.exits.get(params.terminalId)!;
        const status = terminal.killed || !this.hangs(commandOf(terminal.request)) ? await exits.done : undefined;
        return { output: this.output(commandOf(terminal.request)), truncated: false, exitStatus: status ?? null };
      })
      .onRequest("terminal/kill", ({ params }) => {
        this.terminal(params.terminalId).killed = true;
        this.exits.get(params.terminalId)!.exit({ exitCode: null, signal: "SIGTERM" });
        return {};
      })
      .onRequest("terminal/release", ({ params }) => {
        this.terminal(params.terminalId).released = true;
        return {};
      });
  }

  private terminal(id: string): EditorTerminal {
    const found = this.terminals.find((t) => t.id === id);
    if (found === undefined) throw acp.RequestError.invalidParams({ terminalId: id }, "No such terminal.");
    return found;
  }
}

/** The command line the terminal was given (`bash -c <command>`: the command). */
const commandOf = (request: acp.CreateTerminalRequest) => request.args?.at(-1) ?? request.command;

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
