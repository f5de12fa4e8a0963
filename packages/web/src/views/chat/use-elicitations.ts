import { useEffect, useState } from "react";
import { listElicitations, type PendingElicitationAsk } from "../../api/elicitations.js";
import type { RunState } from "./run-state.js";

/** How often the asks are read again while an MCP tool runs: a server may ask at any moment of its call. */
const POLL_MS = 1000;

/**
 * The session's MCP elicitations and logins waiting for an answer. The run stream does not announce them (they
 * are asks of the MCP server, made in the middle of a tool call), so they are read when the page opens
 * or a run starts or ends, and again each second while one of the run's MCP tools is running.
 */
export function useElicitations(
  sessionId: string | undefined,
  run: RunState | undefined,
): [PendingElicitationAsk[], (answered: string) => void] {
  const [asks, setAsks] = useState<PendingElicitationAsk[]>([]);
  // A run starting lists its MCP servers first, and one that wants a login asks for it then.
  const mcpRunning =
    run !== undefined &&
    (Object.values(run.tools).some((t) => t.status === "running" && t.tool.startsWith("mcp__")) ||
      ((run.status === "starting" || run.status === "running") && Object.keys(run.tools).length === 0));

  // biome-ignore lint/correctness/useExhaustiveDependencies: read again when a run starts or ends.
  useEffect(() => {
    if (!sessionId) return;
    let live = true;
    const read = () =>
      listElicitations(sessionId).then(
        (list) => live && setAsks(list),
        () => live && setAsks([]),
      );
    void read();
    const timer = mcpRunning ? setInterval(read, POLL_MS) : undefined;
    return () => {
      live = false;
      if (timer) clearInterval(timer);
    };
  }, [sessionId, run?.status, mcpRunning]);

  return [asks, (answered) => setAsks((list) => list.filter((a) => a.id !== answered))];
}
