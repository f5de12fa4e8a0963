import type { Runtime } from "@arbor/core";
import type { McpLoginAnswer, PendingMcpLogin } from "@arbor/core/session";
import { openBrowser } from "./browser.js";
import type { LoopbackAuthorizer } from "./loopback.js";

export interface TerminalMcpLogin {
  /** The runtime's `mcpLoginRedirect`: the loopback listener's callback, started the first time a login may be needed. */
  redirect(): Promise<string>;
  /** The runtime's `onMcpLogin`: says the URL, opens the browser, and finishes the login when the browser comes back. */
  handler(pending: PendingMcpLogin, signal: AbortSignal): Promise<McpLoginAnswer | undefined>;
  /** The runtime the login is finished through (`runtime.mcp.finishLogin`), once it exists. */
  bind(runtime: Runtime): void;
}

/**
 * An MCP login a run asks for, answered at the terminal (`arbor run`, `arbor chat`) the way
 * `arbor mcp login` does it: the link is printed and opened, the browser comes back to a listener on
 * 127.0.0.1, and the runtime finishes the login, which answers the ask. The ask stays listed
 * meanwhile, so it can be declined from elsewhere (`arbor approvals`, the inspector).
 */
export function terminalMcpLogin(
  say: (line: string) => void,
  env: Readonly<Record<string, string | undefined>>,
): TerminalMcpLogin {
  let listener: Promise<LoopbackAuthorizer> | undefined;
  let runtime: Runtime | undefined;
  const loopback = () => {
    // Loaded with the first login: its node:http would load Node's HTTP client before every run.
    listener ??= import("./loopback.js").then(({ LoopbackAuthorizer }) =>
      LoopbackAuthorizer.start({ unref: true, open: (url) => openBrowser(url, env) }),
    );
    return listener;
  };
  return {
    redirect: async () => (await loopback()).redirectUrl,
    async handler(pending, signal) {
      say(`MCP server ${pending.server} needs you to log in; open this link in your browser: ${pending.url}`);
      try {
        const response = await (await loopback()).authorize(new URL(pending.url), signal);
        await runtime?.mcp.finishLogin(response);
        say(`Logged in to ${pending.server}.`);
        // Finishing the login answered the ask.
        return undefined;
      } catch (err) {
        // The run stopped: its ask is closed as cancelled already.
        if (signal.aborted) return undefined;
        // No browser came back in time, or the answer was refused: the call goes on without the server.
        const reason = err instanceof Error ? err.message : String(err);
        say(reason);
        return { action: "decline", reason };
      }
    },
    bind(bound) {
      runtime = bound;
    },
  };
}
