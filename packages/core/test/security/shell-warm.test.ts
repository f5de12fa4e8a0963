import { describe, expect, it } from "vitest";
import { resolveConfig } from "../../src/config/resolve.js";
import type { MiddlewareContext } from "../../src/loop/run-types.js";
import type { RunEvent } from "../../src/model/run-events.js";
import { SecurityGateway, securityMiddleware } from "../../src/security/gateway.js";

const gateway = () => new SecurityGateway(resolveConfig([{ source: "test", value: {} }]).security);
/** A tool set holding these names, as the runtime's registry answers `get`. */
const toolSet = (...names: string[]) => ({ get: (name: string) => (names.includes(name) ? { name } : undefined) });
const token = { type: "token", content: "Hi" } as RunEvent;

describe("the security middleware warms the shell grammar", () => {
  it("once the model answers, where the runtime can run a shell or Python tool", () => {
    for (const tools of [toolSet("read", "bash"), toolSet("python_repl")]) {
      const g = gateway();
      securityMiddleware(g, tools).onEvent?.(token, {} as MiddlewareContext);
      expect(g.shellLoading).toBe(true);
    }
  });

  it("not where no tool of the runtime takes a command: the grammar would cost its CPU and memory for nothing", () => {
    const g = gateway();
    const mw = securityMiddleware(g, toolSet("read", "write", "search_knowledge_base"));
    mw.onEvent?.(token, {} as MiddlewareContext);
    mw.onEvent?.({ type: "llm_end" } as RunEvent, {} as MiddlewareContext);
    expect(g.shellLoading).toBe(false);
  });
});
