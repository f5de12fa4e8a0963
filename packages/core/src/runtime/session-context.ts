import type { LanguageModelV4 } from "@ai-sdk/provider";
import { switchWithSummary } from "../context/branch-summary.js";
import { ContextSize } from "../context/context-size.js";
import { keepRecentBudget, selectCut } from "../context/cut.js";
import { usableTokens } from "../context/overflow.js";
import { Summarizer } from "../context/summarizer.js";
import { ArborError } from "../errors.js";
import type { ResolvedModel } from "../llm/resolved-model.js";
import { scenarioModel, scenarioRetry } from "../llm/scenario.js";
import { type RunDeps, summaryModel } from "../loop/run-deps.js";
import { resolveModel } from "../loop/run-input.js";
import { summarizeSession } from "../loop/summary.js";
import type { Entry } from "../model/entry.js";
import { buildContext, contextMessages } from "../session/context.js";
import { activePath } from "../session/tree.js";
import type {
  CompactOptions,
  CompactResult,
  SessionSummary,
  SummaryOptions,
  SwitchLeafOptions,
  SwitchLeafResult,
} from "./types.js";
import { compact } from "./write-compaction.js";

function lastModelOnPath(path: readonly Entry[]): string | undefined {
  for (let i = path.length - 1; i >= 0; i--) {
    const entry = path[i]!;
    if (entry.type === "message" && entry.message.role === "assistant" && entry.message.model) return entry.message.model;
  }
  return undefined;
}

/** The session's model as a run would pick it, and the summarizer. */
function modelsFor(deps: RunDeps, path: readonly Entry[], chosen: string | LanguageModelV4 | undefined) {
  const agent = deps.agents.build ?? Object.values(deps.agents)[0]!;
  // A model asked for by name is resolved first: one that cannot be is the error to report, never a
  // reason to fall back on the session's model.
  const picked = chosen === undefined ? undefined : resolveModel(deps, agent, { model: chosen });
  let run: ResolvedModel;
  try {
    run = resolveModel(deps, agent, {});
  } catch (err) {
    const last = lastModelOnPath(path);
    if (last !== undefined) run = resolveOr(deps, last, picked);
    else if (picked !== undefined) run = picked;
    else throw err;
  }
  return { run, picked, summary: picked ?? summaryModel(deps, run) };
}

/** The session's last model, or the model asked for when that one cannot be resolved here (no base URL, say). */
function resolveOr(deps: RunDeps, last: string, picked: ResolvedModel | undefined): ResolvedModel {
  try {
    return deps.models().resolve(last);
  } catch (err) {
    if (picked !== undefined) return picked;
    // The session's model may be one only its recorder could call (a demo's recording, a test's
    // script): say which model was tried and how to name one, not just that its provider is unknown.
    throw new ArborError(
      "invalid_model",
      `No model is configured, and the session's last model ${last} cannot be called here (${(err as Error).message.replace(/\.$/, "")}). Pass --model <provider>/<model>, set ARBOR_MODEL, or set "model" in arbor.json.`,
    );
  }
}

function summarizerFor(deps: RunDeps, model: ResolvedModel, signal: AbortSignal | undefined): Summarizer {
  return new Summarizer({
    model,
    count: deps.tokens.text,
    clock: deps.clock,
    retry: deps.retry,
    signal: signal ?? new AbortController().signal,
  });
}

/**
 * What a summary of `path` is written with (compaction, a branch summary): the session's models, and
 * a summarizer on its summary model, token counts loaded. `focus` is what the user asked the summary
 * to keep, when they asked for anything.
 */
async function summarizing(
  deps: RunDeps,
  path: readonly Entry[],
  options: { model?: string | LanguageModelV4 | undefined; signal?: AbortSignal | undefined; focus?: string | undefined },
) {
  const models = modelsFor(deps, path, options.model);
  await deps.tokens.load();
  const focus = options.focus?.trim();
  return { ...models, summarizer: summarizerFor(deps, models.summary, options.signal), focus: focus ? { focus } : {} };
}

async function pathOf(deps: RunDeps, sessionId: string): Promise<Entry[]> {
  const meta = await deps.store.getSession(sessionId);
  if (!meta)
    throw new ArborError("session_not_found", `No session ${sessionId} in this store; list them with arbor sessions list.`);
  return deps.store.getActivePath(sessionId);
}

/**
 * Manual compaction (`arbor compact`): summarize the session's history now, keeping a recent
 * tail verbatim (everything is summarized when the whole context would fit the tail). No continuation
 * is added: the user's next prompt follows. Throws, having written nothing, when there is nothing to
 * summarize or the summarizer fails.
 */
export async function compactSession(deps: RunDeps, sessionId: string, options: CompactOptions = {}): Promise<CompactResult> {
  const path = await pathOf(deps, sessionId);
  const state = buildContext(path);
  const { run, summarizer, focus } = await summarizing(deps, path, options);
  const tokensBefore = new ContextSize().measure(state, deps.tokens, 0);
  const budget = keepRecentBudget(usableTokens(run.info.limit));
  const keepTokens = selectCut(state, deps.tokens.message, budget) ? budget : 0;
  const outcome = await compact({
    store: deps.store,
    sessionId,
    state,
    summarizer,
    count: deps.tokens.message,
    keepTokens,
    tokensBefore,
    mode: "manual",
    ...focus,
    continuation: false,
  });
  return {
    sessionId,
    entryId: outcome.entry.id,
    tokensBefore,
    tokensAfter: new ContextSize().measure(outcome.state, deps.tokens, 0),
    summarized: outcome.summarized,
    kept: outcome.kept,
    splitTurn: outcome.splitTurn,
    usage: summarizer.usage,
    cost: summarizer.cost,
    ...(summarizer.costKnown ? {} : { costKnown: false as const }),
  };
}

/** `runtime.sessions.summary`: the `summary` helper on the active path, written now, stored nowhere. */
export async function summarizeSessionNow(
  deps: RunDeps,
  sessionId: string,
  options: SummaryOptions = {},
): Promise<SessionSummary> {
  const path = await pathOf(deps, sessionId);
  // The model's view of the path: a compacted session's summary stands for what it replaced.
  const messages = contextMessages(buildContext(path));
  const { run, picked } = modelsFor(deps, path, options.model);
  const model = picked ?? scenarioModel(deps.models, "summary", run) ?? run;
  const env = {
    clock: deps.clock,
    retry: scenarioRetry("summary", deps.retry),
    signal: options.signal ?? new AbortController().signal,
  };
  const written = await summarizeSession(env, model, messages);
  return {
    sessionId,
    summary: written.summary,
    model: model.ref,
    usage: written.usage,
    cost: written.cost,
    ...(written.costKnown ? {} : { costKnown: false as const }),
  };
}

/**
 * Moves the session's leaf (persisted, so another process continues there; `null` clears it so the next message starts a new
 * root). With `summarize`, the branch being left is first summarized by the compaction model and the
 * `branch_summary` is appended under the new leaf, so continuing there tells the model what
 * was tried. A failure changes nothing.
 */
export async function switchSessionLeaf(
  deps: RunDeps,
  sessionId: string,
  entryId: string | null,
  options: SwitchLeafOptions = {},
): Promise<SwitchLeafResult> {
  const active = await pathOf(deps, sessionId);
  const byId = new Map<string, Entry>();
  const pathTo = async (id: string): Promise<Entry[]> => {
    if (!(await deps.store.getEntry(sessionId, id)))
      throw new ArborError("entry_not_found", `No entry ${id} in session ${sessionId}; see arbor sessions tree ${sessionId}.`);
    if (byId.size === 0) for (const e of await deps.store.listEntries(sessionId)) byId.set(e.id, e);
    return activePath(id, (x) => byId.get(x));
  };
  if (options.fromEntryId !== undefined && !options.summarize) {
    throw new ArborError("invalid_input", "fromEntryId names the branch to summarize: it needs summarize.");
  }
  // The branch summarized: the one ending at fromEntryId when given (a bring-back), else the active path.
  const from = options.fromEntryId !== undefined ? await pathTo(options.fromEntryId) : active;
  const to: Entry[] = entryId !== null ? await pathTo(entryId) : [];
  if (!options.summarize) {
    if (entryId === null) await deps.store.resetLeaf(sessionId);
    else await deps.store.switchLeaf(sessionId, entryId);
    return { sessionId, leafId: entryId };
  }
  const { summarizer, focus } = await summarizing(deps, from, options);
  const branchSummary = await switchWithSummary({
    store: deps.store,
    sessionId,
    from,
    to,
    summarizer,
    ...focus,
  });
  return { sessionId, leafId: branchSummary?.id ?? entryId, ...(branchSummary ? { branchSummary } : {}) };
}
