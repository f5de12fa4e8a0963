import type { McpServerConfig } from "../config/schema.js";
import { ArborError } from "../errors.js";
import type { Sdk } from "./client-sdk.js";

/** How many bytes of a stdio server's stderr are kept to explain a failed start or a crash. */
const STDERR_TAIL = 2000;

/**
 * What one server's failures are reported as: errors that name the server and say, from the tail of
 * its stderr, what went wrong.
 */
export class ServerFailures {
  private stderr = "";

  constructor(
    private readonly name: string,
    private readonly config: McpServerConfig,
  ) {}

  /** Forgets the stderr of an earlier start. */
  reset(): void {
    this.stderr = "";
  }

  /** Keeps the tail of what the server writes to stderr. */
  keep(chunk: string): void {
    this.stderr = (this.stderr + chunk).slice(-STDERR_TAIL);
  }

  /** The SDK's failure of a request, as the error that names this server (others pass unchanged). */
  translate(sdk: Sdk | undefined, err: unknown): unknown {
    if (sdk === undefined) return err;
    const { McpError, ErrorCode } = sdk;
    if (err instanceof McpError && err.code === ErrorCode.RequestTimeout) {
      return new ArborError(
        "mcp_timeout",
        `MCP server "${this.name}" did not answer within ${this.config.timeoutMs} ms (timeoutMs in its config).`,
        { server: this.name },
      );
    }
    if (err instanceof McpError && err.code === ErrorCode.ConnectionClosed) {
      return this.unavailable("closed the connection", err);
    }
    // Any other protocol error (unknown tool, bad arguments, a result that fails its schema) is
    // the call's failure, reported with the server's name so the model knows where it came from.
    if (err instanceof McpError) {
      return new ArborError("tool_failed", `MCP server "${this.name}" refused the request: ${err.message}`, {
        server: this.name,
        mcpCode: err.code,
      });
    }
    return err;
  }

  unavailable(what: string, err: unknown): ArborError {
    const reason = err instanceof Error ? err.message : String(err);
    return new ArborError("mcp_unavailable", `${this.describe(what)} (${reason}). It is started again on the next call.`, {
      server: this.name,
    });
  }

  describe(what: string): string {
    // The lines that say what went wrong, not a stack trace's frames.
    const lines = this.stderr
      .split("\n")
      .map((line) => line.trim())
      .filter((line) => line !== "" && !line.startsWith("at ") && !/^[{}^]+$/.test(line));
    const errors = lines.filter((line) => /error/i.test(line));
    const tail = (errors.length > 0 ? errors : lines).slice(-3).join(" | ");
    const where = this.config.url ?? [this.config.command, ...(this.config.args ?? [])].join(" ");
    return `MCP server "${this.name}" (${where}) ${what}${tail ? `; its stderr: ${tail}` : ""}`;
  }
}
