import type { AgentContext, ClientCapabilities, TerminalExitStatus } from "@agentclientprotocol/sdk";
import type { CommandOutcome, CommandRequest, CommandRunner, Workspace, WorkspaceFiles } from "@arbor/core/tools";

/**
 * The editor's side of a session's workspace, for what the client offered at `initialize`: its
 * `fs/*` methods read its buffers (unsaved changes included) and make writes it records, and its
 * `terminal/*` methods run commands in a terminal the user watches. Undefined when it offered none,
 * so the tools keep to the local disk and shell.
 */
export function clientWorkspace(
  client: AgentContext,
  sessionId: string,
  capabilities: ClientCapabilities | undefined,
): Workspace | undefined {
  const reads = capabilities?.fs?.readTextFile === true;
  const writes = capabilities?.fs?.writeTextFile === true;
  // Half of fs is no use to the file tools: an edit reads and writes the same copy.
  const files = reads && writes ? clientFiles(client, sessionId) : undefined;
  const commands = capabilities?.terminal === true ? clientTerminals(client, sessionId) : undefined;
  if (files === undefined && commands === undefined) return undefined;
  return { ...(files === undefined ? {} : { files }), ...(commands === undefined ? {} : { commands }) };
}

function clientFiles(client: AgentContext, sessionId: string): WorkspaceFiles {
  return {
    async readText(path, signal) {
      const read = await client.request("fs/read_text_file", { sessionId, path }, { cancellationSignal: signal });
      return read.content;
    },
    async writeText(path, content, signal) {
      await client.request("fs/write_text_file", { sessionId, path, content }, { cancellationSignal: signal });
    },
  };
}

/**
 * Commands in the client's terminals: create, wait for the exit (or the timeout, or the run's
 * abort, which kill it), read the output, release. The terminal stays shown in the tool call after
 * its release, as the protocol asks of clients.
 */
function clientTerminals(client: AgentContext, sessionId: string): CommandRunner {
  return {
    async run(request: CommandRequest): Promise<CommandOutcome> {
      const terminal = await client.createTerminal({
        sessionId,
        command: request.shell,
        args: ["-c", request.command],
        cwd: request.cwd,
        env: Object.entries(request.env).map(([name, value]) => ({ name, value })),
        outputByteLimit: request.maxOutputBytes,
      });
      try {
        request.started?.({ terminalId: terminal.id });
        const stop = stopped(request);
        const exited = terminal.waitForExit();
        // A wait the kill answers late (or the connection's end rejects) is no longer anyone's.
        exited.catch(() => undefined);
        const first = await Promise.race([exited.then((status) => ({ status })), stop.promise.then((why) => ({ why }))]);
        stop.dispose();
        let status: TerminalExitStatus | undefined = "status" in first ? first.status : undefined;
        if ("why" in first) {
          await terminal.kill();
          status = await exited.catch(() => undefined);
        }
        const out = await terminal.currentOutput();
        const exit = out.exitStatus ?? status;
        return {
          output: out.output,
          truncated: out.truncated,
          exitCode: exit?.exitCode ?? null,
          signal: exit?.signal ?? null,
          timedOut: "why" in first && first.why === "timeout",
          aborted: "why" in first && first.why === "abort",
        };
      } finally {
        await terminal.release().catch(() => undefined);
      }
    },
  };
}

/** Settles with why the command must stop: its timeout passed or the run was aborted. */
function stopped(request: CommandRequest): { promise: Promise<"timeout" | "abort">; dispose(): void } {
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const promise = new Promise<"timeout" | "abort">((resolve) => {
    if (request.signal.aborted) return resolve("abort");
    timer = setTimeout(() => resolve("timeout"), request.timeoutMs);
    onAbort = () => resolve("abort");
    request.signal.addEventListener("abort", onAbort, { once: true });
  });
  return {
    promise,
    dispose() {
      clearTimeout(timer);
      if (onAbort) request.signal.removeEventListener("abort", onAbort);
    },
  };
}
