import { useSyncExternalStore } from "react";
import { api } from "../api/client.js";
import {
  type ChatBody,
  type ReplayBody,
  readRunStream,
  resumeStream,
  type StreamEvent,
  startChat,
  startReplay,
  steerRun,
} from "../api/run-stream.js";
import { ignoreBody, parseSnapshot } from "../api/wire.js";
import {
  applyRunEvent,
  isActive,
  newRun,
  type PermissionAsk,
  type PlanAsk,
  type QuestionAsk,
  type RunState,
  type SteerView,
  withSteer,
  withSteersRead,
} from "../views/chat/run-state.js";
import { debugLevel } from "./debug-level.js";
import { steersReadByLatestRun } from "./steering.js";

/**
 * The runs this page is streaming, by session id, outside React so a run keeps streaming while the
 * user moves between sessions and tabs (a run started from "New session" gets its id from its first
 * event). A dropped connection resumes from the last SSE id; the server never stops a run because a
 * reader left.
 */
type Listener = () => void;

const RESUME_ATTEMPTS = 5;

class RunStore {
  private runs = new Map<string, RunState>();
  private aliases = new Map<string, string>();
  private controllers = new Map<string, AbortController>();
  private listeners = new Set<Listener>();
  private endListeners = new Set<(sessionId: string) => void>();
  private counter = 0;

  subscribe = (listener: Listener): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  /** Called with the session id each time one of its runs ends (to reload the snapshot). */
  onRunEnd(listener: (sessionId: string) => void): () => void {
    this.endListeners.add(listener);
    return () => this.endListeners.delete(listener);
  }

  get(key: string | undefined): RunState | undefined {
    if (key === undefined) return undefined;
    return this.runs.get(this.aliases.get(key) ?? key);
  }

  private set(run: RunState): void {
    this.runs.set(run.key, run);
    for (const l of this.listeners) l();
  }

  private apply(key: string, batch: StreamEvent[], onSession?: (sessionId: string) => void): string {
    // An attached run has no placeholder until its first events arrive.
    let run = this.get(key) ?? newRun(key, "", key);
    const now = performance.now();
    for (const { id, event } of batch) {
      run = applyRunEvent(run, event, now);
      if (id !== undefined) run.lastEventId = id;
    }
    // A run reads steering messages just before a model call: the session then shows which it took in.
    const unread = Object.values(run.steers).some((s) => s.status === "sending" || s.status === "waiting");
    if (unread && run.sessionId !== undefined && batch.some((b) => b.event.type === "llm_start")) {
      void this.checkSteers(run.sessionId);
    }
    if (run.sessionId !== undefined && run.key !== run.sessionId) {
      // The first event names a new session: file the run under its id from now on.
      this.runs.delete(run.key);
      this.aliases.set(run.key, run.sessionId);
      const controller = this.controllers.get(run.key);
      if (controller) {
        this.controllers.delete(run.key);
        this.controllers.set(run.sessionId, controller);
      }
      const sessionId = run.sessionId;
      this.set({ ...run, key: sessionId });
      if (run.status === "error" && run.items.length === 0) {
        // Its first word is an error: the run may have failed before it began (no model configured,
        // an unknown agent), and then the session it names was never made. The error stays where
        // the message was sent rather than leading to a page that says the session does not exist.
        if (onSession) void sessionExists(sessionId).then((exists) => exists && onSession(sessionId));
      } else {
        onSession?.(sessionId);
      }
      return sessionId;
    }
    this.set(run);
    return run.key;
  }

  /** Starts a run; returns its key (the session id when continuing one). */
  start(given: ChatBody, onSession?: (sessionId: string) => void): string {
    // The composer's debug picker applies to every run started here.
    const level = debugLevel.value;
    const body: ChatBody = level === "off" || given.debug !== undefined ? given : { ...given, debug: level };
    const key = body.session_id ?? `new-${++this.counter}`;
    const controller = new AbortController();
    this.controllers.set(key, controller);
    this.set(newRun(key, body.message, body.session_id));
    void this.pump(key, () => startChat(body, controller.signal), controller, onSession);
    return key;
  }

  /**
   * Edits a past goal call and streams the continued run like one started here; when it ends the
   * session's snapshot reloads onto the new branch, which the replay made the leaf.
   */
  replay(sessionId: string, body: ReplayBody): void {
    const controller = new AbortController();
    this.controllers.set(sessionId, controller);
    this.set(newRun(sessionId, "", sessionId));
    void this.pump(sessionId, () => startReplay(sessionId, body, controller.signal), controller);
  }

  /** Attaches to the session's run in progress, if the server has one (a run started elsewhere or before a reload). */
  attach(sessionId: string): void {
    if (this.controllers.has(sessionId) || isActive(this.get(sessionId))) return;
    const controller = new AbortController();
    this.controllers.set(sessionId, controller);
    void this.pump(sessionId, () => resumeStream(sessionId, undefined, controller.signal), controller, undefined, true);
  }

  private async pump(
    key: string,
    open: () => Promise<Response>,
    controller: AbortController,
    onSession?: (sessionId: string) => void,
    quietIfIdle = false,
  ): Promise<void> {
    let current = key;
    let attempts = 0;
    let request = open;
    for (;;) {
      try {
        const res = await request();
        if (res.status === 204 && quietIfIdle) {
          this.controllers.delete(current);
          return;
        }
        let first = true;
        await readRunStream(res, (batch) => {
          // Attaching replays the latest run even when it has ended: a first batch that already
          // holds the end is history the snapshot shows, not a live run.
          if (first && quietIfIdle && batch.some((b) => b.event.type === "done" || b.event.type === "error")) {
            this.runs.delete(current);
            controller.abort();
            return;
          }
          first = false;
          current = this.apply(current, batch, onSession);
        });
        break;
      } catch (err) {
        const run = this.get(current);
        if (controller.signal.aborted || !run) {
          if (quietIfIdle && !run) return void this.controllers.delete(current);
          break;
        }
        const sessionId = run.sessionId;
        if (sessionId === undefined || run.lastEventId === undefined || attempts >= RESUME_ATTEMPTS || !isActive(run)) {
          this.set({ ...run, status: "error", error: { message: err instanceof Error ? err.message : String(err) } });
          break;
        }
        attempts++;
        const after = run.lastEventId;
        request = () => resumeStream(sessionId, after, controller.signal);
      }
    }
    this.controllers.delete(current);
    const run = this.get(current);
    if (run && isActive(run)) {
      // The stream ended without done/error (server closing): say so rather than spin forever.
      this.set({ ...run, status: "error", error: { message: "The stream ended before the run did; reload to see its state." } });
    }
    if (run?.sessionId) for (const l of this.endListeners) l(run.sessionId);
  }

  /**
   * Hands `text` to the session's running run (steering). It shows at once in the run, waiting, and
   * is marked read once the session shows the run took it in at a step.
   */
  async steer(sessionId: string, text: string): Promise<void> {
    const run = this.get(sessionId);
    const id = `steer-${++this.counter}`;
    if (run) this.set(withSteer(run, { id, text, status: "sending" }));
    try {
      await steerRun(sessionId, text);
      this.updateSteer(sessionId, id, (s) => (s.status === "sending" ? { ...s, status: "waiting" } : s));
    } catch (err) {
      const error = err instanceof Error ? err.message : String(err);
      this.updateSteer(sessionId, id, (s) => ({ ...s, status: "failed", error }));
      throw err;
    }
  }

  private updateSteer(sessionId: string, id: string, change: (steer: SteerView) => SteerView): void {
    const run = this.get(sessionId);
    const steer = run?.steers[id];
    if (run && steer) this.set({ ...run, steers: { ...run.steers, [id]: change(steer) } });
  }

  private async checkSteers(sessionId: string): Promise<void> {
    const snapshot = await api(`/api/sessions/${encodeURIComponent(sessionId)}`, parseSnapshot).catch(() => undefined);
    const run = this.get(sessionId);
    if (snapshot && run) this.set(withSteersRead(run, steersReadByLatestRun(snapshot)));
  }

  async abort(sessionId: string): Promise<void> {
    await api(`/api/sessions/${encodeURIComponent(sessionId)}/abort`, ignoreBody, { method: "POST" });
  }

  async reply(
    sessionId: string,
    ask: PermissionAsk,
    reply: "once" | "always" | "reject",
    scope?: "session" | "project" | "global",
  ): Promise<void> {
    // An "always" reaches only this session unless a wider scope was chosen.
    const wider = reply === "always" && scope !== undefined && scope !== "session" ? { scope } : {};
    await api(`/api/permissions/${encodeURIComponent(ask.id)}`, ignoreBody, { json: { reply, ...wider } });
    const run = this.get(sessionId);
    if (run?.permissions[ask.id]) this.set({ ...run, permissions: { ...run.permissions, [ask.id]: { ...ask, reply } } });
  }

  /** Answers the agent's question, or dismisses it (`POST /api/asks/:id`). */
  async answerQuestion(sessionId: string, ask: QuestionAsk, answer: { answers: string[] } | { dismissed: true }): Promise<void> {
    const body = "answers" in answer ? { answers: answer.answers } : { allow: false };
    await api(`/api/asks/${encodeURIComponent(ask.id)}`, ignoreBody, { json: body });
    const run = this.get(sessionId);
    if (run?.questions[ask.id]) this.set({ ...run, questions: { ...run.questions, [ask.id]: { ...ask, answer } } });
  }

  /** Answers a plan approval ask (`POST /api/plan/approve`). */
  async approvePlan(sessionId: string, plan: PlanAsk, approved: boolean, reason?: string): Promise<void> {
    const answer = reason ? { approved, reason } : { approved };
    await api("/api/plan/approve", ignoreBody, { json: { plan_id: plan.planId, ...answer } });
    const run = this.get(sessionId);
    if (run?.plans[plan.planId]) this.set({ ...run, plans: { ...run.plans, [plan.planId]: { ...plan, answer } } });
  }

  /**
   * Drops a finished run once the session's snapshot shows what it wrote. A run that failed or was
   * aborted stays until the next one, so its ending stays on screen.
   */
  clear(sessionId: string): void {
    const run = this.get(sessionId);
    if (run?.status !== "done") return;
    this.runs.delete(run.key);
    for (const l of this.listeners) l();
  }
}

async function sessionExists(sessionId: string): Promise<boolean> {
  try {
    await api(`/api/sessions/${encodeURIComponent(sessionId)}`, ignoreBody);
    return true;
  } catch {
    return false;
  }
}

export const runs = new RunStore();

export function useRun(key: string | undefined): RunState | undefined {
  return useSyncExternalStore(runs.subscribe, () => runs.get(key));
}
