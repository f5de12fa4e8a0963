import * as acp from "@agentclientprotocol/sdk";

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
