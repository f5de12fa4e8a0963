import { useEffect, useState } from "react";
import { listElicitations, type PendingElicitationAsk } from "../../api/elicitations.js";
import { isActive, type RunState } from "./run-state.js";

/**
 * The session's MCP elicitations waiting for an answer: those the run stream announces
 * (`elicitation_request`, gone at `elicitation_answered`), and those already waiting when the page
 * opened, read once (`GET /api/asks`), for a run this page did not start or follow from its beginning.
 * The second value drops one this page answered, before the run says it ended.
 */
export function useElicitations(
  sessionId: string | undefined,
  run: RunState | undefined,
): [PendingElicitationAsk[], (answered: string) => void] {
  const [opened, setOpened] = useState<PendingElicitationAsk[]>([]);
  const [answered, setAnswered] = useState<ReadonlySet<string>>(new Set());

  useEffect(() => {
    setOpened([]);
    if (!sessionId) return;
    let live = true;
    listElicitations(sessionId).then(
      (list) => live && setOpened(list),
      () => live && setOpened([]),
    );
    return () => {
      live = false;
    };
  }, [sessionId]);

  const announced = run?.sessionId === sessionId || sessionId === undefined ? Object.values(run?.elicitations ?? {}) : [];
  const ended = new Set(announced.filter((e) => e.ended !== undefined).map((e) => e.ask.id));
  // A run that stopped withdraws what it asked, even if its stream ended before saying so.
  const stillAsked = isActive(run) ? announced.filter((e) => e.ended === undefined).map((e) => e.ask) : [];
  const shown = [...opened.filter((a) => !stillAsked.some((b) => b.id === a.id)), ...stillAsked].filter(
    (a) => !ended.has(a.id) && !answered.has(a.id),
  );
  return [shown, (id) => setAnswered((set) => new Set(set).add(id))];
}
