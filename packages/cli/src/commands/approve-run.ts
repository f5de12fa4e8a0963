import { ArborError, type Store } from "@arbor/core/open";
import { latestPlanRecord } from "@arbor/core/session";
import { assertSessionId } from "@arbor/core/wire";
import { flag, type OptionValues, stringOption } from "../args.js";
import { cliRuntime } from "../cli-runtime.js";
import { EXIT_OK, UsageError } from "../errors.js";
import { resolveSessionId } from "../ids.js";
import { type Io, writeJson, writeLines } from "../io.js";
import type { RunOutcome } from "../render/live.js";
import type { RunHandleLike } from "../run/drive.js";
import { loadCommandConfig, workspaceDir } from "../run/flags.js";
import { playRun } from "../run/play.js";
import { typedAnswer } from "../run/questions.js";
import { shellWord } from "../run/shell.js";
import { withSessionRuntime } from "../session-runtime.js";
import { withStore } from "../store.js";
import { ASK_ID, askSubject, resolveAskId } from "./asks.js";

const USAGE =
  "arbor approve <ask-id> [--answer <text>] [--deny [--reason …]] | arbor approve <session>[:<plan>] [--reject [--reason …]] | arbor approve <session> --permission <p> --pattern <glob>";

/** `<session>` or `<session>:<8 hex digits>` (a plan id, as plan_created and the stop message print it). */
function splitTarget(target: string): { session: string; plan: string | undefined } {
  const at = target.lastIndexOf(":");
  if (at < 0) return { session: target, plan: undefined };
  const plan = target.slice(at + 1);
  if (!/^[0-9a-f]{8}$/.test(plan)) {
    throw new UsageError(`'${target}' is not a plan id: a plan id is <session>:<8 hex digits>, as the run printed it.`);
  }
  return { session: target.slice(0, at), plan };
}

/** The id of the plan waiting for approval in the session: the one named, else the latest on its branch. */
async function waitingPlan(store: Store, sessionId: string, plan: string | undefined): Promise<string> {
  const path = await store.getActivePath(sessionId);
  const planId = plan === undefined ? undefined : `${sessionId}:${plan}`;
  const record = latestPlanRecord(path, planId);
  if (record === undefined) {
    throw new ArborError(
      "plan_not_found",
      `Session ${sessionId} has no plan${planId ? ` ${planId}` : ""} on its current branch.`,
    );
  }
  if (record.status !== "awaiting_approval") {
    throw new ArborError(
      "plan_not_pending",
      `Plan ${record.plan.planId} is not waiting for approval: it was ${record.status.replace("_", " ")} already.`,
    );
  }
  return record.plan.planId;
}

/**
 * A run handle for a run that starts once `started` settles: the approval's own run, or none when a
 * run of this process took the answer. A failure to start (an unknown plan) rejects `result`.
 */
function laterHandle(sessionId: string, started: Promise<RunHandleLike | undefined>): RunHandleLike {
  const none: RunOutcome = {
    sessionId,
    status: "done",
    steps: 0,
    usage: { input: 0, output: 0, reasoning: 0, cacheRead: 0, cacheWrite: 0 },
    cost: 0,
  };
  return {
    sessionId,
    result: started.then((h) => (h ? h.result : none)),
    abort: (reason) => void started.then((h) => h?.abort(reason)).catch(() => undefined),
    async *[Symbol.asyncIterator]() {
      const handle = await started;
      if (handle) yield* handle;
    },
  };
}

/** `--permission`: record an "always" approval in the session, as answering [a]lways at the prompt would. */
async function allowPermission(io: Io, values: OptionValues, target: string, permission: string): Promise<number> {
  const pattern = stringOption(values, "pattern");
  if (pattern === undefined || pattern.trim() === "") {
    throw new UsageError(
      "--permission needs --pattern <glob>: what to allow, as the run's message named it (e.g. --pattern .env).",
    );
  }
  if (flag(values, "reject")) throw new UsageError("--reject answers plans; to refuse a permission, just do not allow it.");
  const agent = stringOption(values, "agent") ?? "build";
  assertSessionId(target);
  return withStore(io, values, async (store, resolved) => {
    const sessionId = await resolveSessionId(store, target);
    await withSessionRuntime(io, store, "arbor approve", (runtime) =>
      runtime.asks.grantApproval(sessionId, { agent, permission, pattern }),
    );
    if (flag(values, "json")) writeJson(io.stdout, { sessionId, agent, permission, pattern });
    else {
      const store = resolved.explicit ? ` --store ${shellWord(stringOption(values, "store") ?? "")}` : "";
      writeLines(io.stdout, [
        `Allowed ${permission} for ${pattern} in session ${sessionId} (agent ${agent}), from now on.`,
        `  continue: arbor run --session ${sessionId}${store} "go on"`,
      ]);
    }
    return EXIT_OK;
  });
}

/** A plan named by its session (and its 8 hex digits): answer it, and play the run that carries on. */
async function answerPlan(io: Io, values: OptionValues, target: string): Promise<number> {
  const { session, plan } = splitTarget(target);
  assertSessionId(session);
  const approved = !refused(values);
  checkReason(values, approved);
  return withStore(io, values, async (store, resolved) => {
    const sessionId = await resolveSessionId(store, session);
    const planId = await waitingPlan(store, sessionId, plan);
    return playPlanAnswer(io, values, { store, label: resolved.label, explicit: resolved.explicit }, sessionId, planId, approved);
  });
}

/** `--deny` or `--reject`: the same refusal, however the user says it. */
const refused = (values: OptionValues) => flag(values, "reject") || flag(values, "deny");

function checkReason(values: OptionValues, approved: boolean): void {
  if (stringOption(values, "reason") !== undefined && approved) {
    throw new UsageError("--reason goes with --reject (or --deny): say why it is refused.");
  }
}

/** Answers the plan and plays the run that carries on from the answer (phase 2, or the rejection), if one here does. */
async function playPlanAnswer(
  io: Io,
  values: OptionValues,
  resolved: { store: Store; label: string; explicit: boolean },
  sessionId: string,
  planId: string,
  approved: boolean,
): Promise<number> {
  const { store } = resolved;
  const reason = stringOption(values, "reason");
  const cwd = workspaceDir(io, stringOption(values, "cwd"));
  const config = loadCommandConfig(io, cwd, { model: stringOption(values, "model"), baseURL: stringOption(values, "base-url") });
  const json = flag(values, "json");
  const storeArg = resolved.explicit ? ` --store ${shellWord(stringOption(values, "store") ?? "")}` : "";
  const { code } = await playRun({
    io,
    json,
    yes: flag(values, "yes"),
    store,
    storeLabel: resolved.label,
    storeArg,
    createRuntime: (onPermission, onPlanApproval, onRetry, onQuestion) => {
      const runtime = cliRuntime(io, "arbor approve", {
        store,
        config,
        cwd,
        snapshots: true,
        onPermission,
        onPlanApproval,
        onRetry,
        onQuestion,
      });
      return {
        run: () =>
          laterHandle(
            sessionId,
            runtime.asks.approvePlan(planId, approved, reason).then((r) => r.run),
          ),
        close: () => runtime.close(),
      };
    },
    input: null,
    next: (id) => [
      ["continue", `arbor run${storeArg} --session ${id} "…"`],
      ["inspect", `arbor sessions show ${id}${storeArg}`],
    ],
  });
  return code;
}

/**
 * An ask by its id (`perm_…`, `plan_…`, or a prefix only one waiting ask starts with): a permission
 * is allowed once or denied, and the run waiting on it goes on wherever it runs; a plan is approved
 * or rejected, and the run that carries on is played here when no run waits on it.
 */
async function answerAsk(io: Io, values: OptionValues, target: string): Promise<number> {
  const allow = !refused(values);
  checkReason(values, allow);
  const reason = stringOption(values, "reason");
  const content = contentOption(values, allow);
  const text = stringOption(values, "answer");
  if (text !== undefined && !allow) throw new UsageError("--answer answers a question; --deny dismisses it: give one of them.");
  if (text !== undefined && text.trim() === "")
    throw new UsageError("--answer needs the answer: an option (its label or number) or your own words.");
  return withStore(io, values, async (store, resolved) => {
    const found = await withSessionRuntime(io, store, "arbor approve", async (runtime) => {
      const pending = await runtime.asks.listPending();
      const id = await resolveAskId(store, pending, target);
      const ask = pending.find((a) => a.id === id);
      if (ask?.kind === "plan" && text === undefined) return { kind: "plan" as const, ask };
      if (content !== undefined && ask?.kind !== "elicitation") {
        throw new UsageError("--content answers an MCP server's elicitation (elic_…), not this ask.");
      }
      if (ask?.kind === "question" && allow && text === undefined) {
        throw new UsageError(
          `Ask ${id} is a question: answer it with --answer <text> (an option's label or number), or dismiss it with --deny.`,
        );
      }
      // Numbers pick options, and a question that takes several splits the answer at commas.
      const answers =
        text === undefined ? undefined : ask?.kind === "question" ? typedAnswer(ask.question, text) : { answers: [text] };
      // A plan answered or expired already is refused here with plan_not_pending or ask_expired.
      const answered = await runtime.asks.answer(id, allow, {
        ...(reason === undefined ? {} : { message: reason }),
        ...(content === undefined ? {} : { content }),
        ...(answers !== undefined && "answers" in answers ? { answers: answers.answers } : {}),
      });
      const sessionId = answered.kind === "plan" ? answered.result.sessionId : answered.record.sessionId;
      const value = answered.kind === "question" ? answered.record.answer?.value : undefined;
      const kind =
        answered.kind === "question"
          ? ("question" as const)
          : answered.kind === "elicitation" || answered.kind === "mcp_login"
            ? answered.kind
            : ("permission" as const);
      return { kind, id, sessionId, subject: ask ? askSubject(ask) : "", value };
    });
    if (found.kind === "plan") {
      const { plan, sessionId } = found.ask;
      return playPlanAnswer(
        io,
        values,
        { store, label: resolved.label, explicit: resolved.explicit },
        sessionId,
        plan.planId,
        allow,
      );
    }
    if (found.kind === "question") {
      const answers = (found.value as { answers?: string[] } | undefined)?.answers;
      if (flag(values, "json"))
        writeJson(io.stdout, { id: found.id, sessionId: found.sessionId, kind: "question", ...found.value });
      else
        writeLines(io.stdout, [
          `${answers ? `Answered ${answers.map((a) => JSON.stringify(a)).join(", ")}` : "Dismissed"}: question ${found.id}${found.subject ? ` (${found.subject})` : ""} in session ${found.sessionId}.`,
          "  The run waiting on it goes on; a run cut off takes the answer when its session is resumed.",
        ]);
      return EXIT_OK;
    }
    if (flag(values, "json"))
      writeJson(io.stdout, { id: found.id, sessionId: found.sessionId, kind: found.kind, allowed: allow });
    else {
      const verb =
        found.kind === "elicitation" || found.kind === "mcp_login"
          ? allow
            ? "Accepted"
            : "Declined"
          : allow
            ? "Allowed once"
            : "Denied";
      writeLines(io.stdout, [
        `${verb}: ask ${found.id}${found.subject ? ` (${found.subject})` : ""} in session ${found.sessionId}.`,
        "  The run waiting on it goes on; a run cut off takes the answer when its session is resumed.",
      ]);
    }
    return EXIT_OK;
  });
}

/** `--content`: an elicitation's fields, a JSON object; only with an answer that accepts. */
function contentOption(values: OptionValues, allow: boolean): Record<string, unknown> | undefined {
  const text = stringOption(values, "content");
  if (text === undefined) return undefined;
  if (!allow) throw new UsageError("--content goes with accepting an elicitation, not with --deny.");
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new UsageError(`--content must be a JSON object, like '{"name": "Ada"}'; got ${text}.`);
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    throw new UsageError(`--content must be a JSON object, like '{"name": "Ada"}'; got ${text}.`);
  }
  return parsed as Record<string, unknown>;
}

/** `arbor approve`: answer, after the fact, what a run without a terminal stopped on. */
/** `arbor approve`'s work, loaded when the command runs (see approve.ts for its flags and help). */
export async function runApproveCommand(io: Io, values: OptionValues, operands: readonly string[]): Promise<number> {
  if (operands.length === 0) throw new UsageError(`missing <session>. Usage: ${USAGE}`);
  if (operands.length > 1) throw new UsageError(`unexpected argument '${operands[1]}'. Usage: ${USAGE}`);
  const target = operands[0] as string;
  if (ASK_ID.test(target)) {
    for (const name of ["permission", "pattern", "agent"] as const) {
      if (stringOption(values, name) !== undefined) throw new UsageError(`--${name} does not go with an ask id.`);
    }
    return answerAsk(io, values, target);
  }
  if (stringOption(values, "answer") !== undefined) throw new UsageError("--answer goes with a question's ask id (question_…).");
  const permission = stringOption(values, "permission");
  if (permission !== undefined) return allowPermission(io, values, target, permission);
  for (const name of ["pattern", "agent"] as const) {
    if (stringOption(values, name) !== undefined) throw new UsageError(`--${name} goes with --permission.`);
  }
  return answerPlan(io, values, target);
}
