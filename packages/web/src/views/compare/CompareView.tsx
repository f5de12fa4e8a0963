import type { Entry, Snapshot } from "@arbor/core";
import { ArrowLeftRight, GitMerge } from "lucide-react";
import { useMemo, useState } from "react";
import { apiResponse } from "../../api/client.js";
import { formatCost, formatTokens } from "../../lib/format.js";
import { ShowMore } from "../common/ShowMore.js";
import { TextField } from "../common/TextField.js";
import { describeEntry, entryTag } from "../tree/flatten.js";
import { branchChoices, comparePaths, entryTokens, entryTools, pathTo, type SideTotals, sideTotals } from "./compare-paths.js";

interface Props {
  snapshot: Snapshot;
  reload: () => Promise<void>;
}

/**
 * Two branches of the session side by side from where they part (messages, tools, tokens), and
 * "bring back": one branch's conclusions summarized into the other as a branch summary entry.
 */
export function CompareView({ snapshot, reload }: Props) {
  const choices = useMemo(() => branchChoices(snapshot), [snapshot]);
  const byId = useMemo(() => new Map(snapshot.entries.map((e) => [e.id, e])), [snapshot]);
  // B starts as the active branch (its deepest choice), A as another branch's end.
  const [bId, setB] = useState<string | undefined>(() => (choices.findLast((c) => c.onActivePath) ?? choices[0])?.id);
  const [aId, setA] = useState<string | undefined>(
    () => (choices.find((c) => !c.onActivePath && c.id !== bId) ?? choices.find((c) => c.id !== bId))?.id,
  );
  const [focus, setFocus] = useState("");
  const [status, setStatus] = useState<{ ok: boolean; text: string } | undefined>();
  const [busy, setBusy] = useState(false);
  const a = aId && byId.has(aId) ? aId : undefined;
  const b = bId && byId.has(bId) ? bId : undefined;
  const comparison = useMemo(() => (a && b ? comparePaths(pathTo(byId, a), pathTo(byId, b)) : undefined), [a, b, byId]);

  if (choices.length < 2) {
    return (
      <p className="muted compare-empty">
        This session has one branch. Continue from an earlier entry (Tree tab) to make another, then compare them here.
      </p>
    );
  }

  const bringBack = async (from: string, into: string, name: string, target: string, followNewLeaf: (id: string) => void) => {
    setBusy(true);
    setStatus(undefined);
    try {
      const res = await apiResponse(`/api/sessions/${encodeURIComponent(snapshot.session.id)}/leaf`, {
        method: "POST",
        json: { entry_id: into, summarize: true, from_entry_id: from, ...(focus.trim() ? { focus: focus.trim() } : {}) },
      });
      const leaf = ((await res.json()) as { leafEntryId?: unknown }).leafEntryId;
      await reload();
      // The target branch now ends at the summary: keep comparing that branch, from its new end.
      if (typeof leaf === "string") followNewLeaf(leaf);
      setStatus({
        ok: true,
        text: `${name}'s conclusions are now a branch summary under ${target}, the active leaf: continue there in Chat.`,
      });
    } catch (err) {
      setStatus({ ok: false, text: err instanceof Error ? err.message : String(err) });
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="compare">
      <div className="compare-pickers">
        <BranchPicker name="Branch A" value={a} choices={choices} onChange={setA} />
        <button
          type="button"
          className="icon-text"
          onClick={() => {
            setA(b);
            setB(a);
          }}
          aria-label="Swap branches A and B"
        >
          <ArrowLeftRight size={16} aria-hidden="true" /> Swap
        </button>
        <BranchPicker name="Branch B" value={b} choices={choices} onChange={setB} />
      </div>
      {comparison && (
        <>
          <p className="muted" data-testid="compare-shared">
            {comparison.shared.length === 0
              ? "The two paths share nothing."
              : `Both share ${comparison.shared.length} entries, up to “${describeEntry(comparison.shared.at(-1) as Entry).slice(0, 80)}”.`}
          </p>
          <div className="compare-columns">
            {/* Keyed by the branch shown, so a swap moves the two columns instead of redrawing both lists. */}
            <PathColumn key={`path:${a}`} name="Branch A" entries={comparison.a} />
            <PathColumn key={a === b ? "path:same" : `path:${b}`} name="Branch B" entries={comparison.b} />
          </div>
          <section className="bring-back" aria-labelledby="bring-back-title">
            <h2 id="bring-back-title">
              <GitMerge size={16} aria-hidden="true" /> Bring back
            </h2>
            <p className="muted">
              The compaction model summarizes one branch's own part; the summary is added under the other branch's end, which
              becomes the active leaf, so the agent continues there knowing what the other branch found.
            </p>
            <TextField label="Focus (optional)" value={focus} onValue={setFocus} placeholder="what the summary should keep" />
            <div className="button-row">
              <button
                type="button"
                className="primary"
                disabled={busy || comparison.a.length === 0}
                onClick={() => a && b && bringBack(a, b, "Branch A", "branch B", setB)}
              >
                Bring A's conclusions into B
              </button>
              <button
                type="button"
                disabled={busy || comparison.b.length === 0}
                onClick={() => a && b && bringBack(b, a, "Branch B", "branch A", setA)}
              >
                Bring B's conclusions into A
              </button>
            </div>
            {status && (
              <p role={status.ok ? "status" : "alert"} className={status.ok ? "" : "error"}>
                {status.text}
              </p>
            )}
          </section>
        </>
      )}
    </div>
  );
}

function BranchPicker(props: {
  name: string;
  value: string | undefined;
  choices: ReturnType<typeof branchChoices>;
  onChange: (id: string) => void;
}) {
  return (
    <label className="field grow">
      <span>{props.name}</span>
      <select aria-label={props.name} value={props.value ?? ""} onChange={(e) => props.onChange(e.target.value)}>
        {props.choices.map((c) => (
          <option key={c.id} value={c.id}>
            {c.title}
          </option>
        ))}
      </select>
    </label>
  );
}

function totalsText(t: SideTotals): string {
  const parts = [`${t.messages} messages`, `${t.toolCalls} tool calls`, `${formatTokens(t.tokens) || "0"} tokens`];
  if (t.cost > 0) parts.push(formatCost(t.cost));
  return parts.join(" · ");
}

/** Entries listed at first and per "show more" in a column: a 25,000-entry branch must not stall the page. */
const PAGE = 200;

function PathColumn({ name, entries }: { name: string; entries: Entry[] }) {
  const totals = useMemo(() => sideTotals(entries), [entries]);
  const [shown, setShown] = useState(PAGE);
  return (
    <section className="compare-column" aria-label={`${name} path`}>
      <h2>{name}</h2>
      <p className="muted" data-testid="compare-totals">
        {totalsText(totals)}
      </p>
      {entries.length === 0 ? (
        <p className="muted">Nothing of its own: this path is part of the other.</p>
      ) : (
        <ol>
          {entries.slice(0, shown).map((e) => {
            const tokens = entryTokens(e);
            const tools = entryTools(e);
            return (
              <li key={e.id} data-entry-id={e.id}>
                <span className="badge">{entryTag(e)}</span> {describeEntry(e).slice(0, 240)}
                {(tools.length > 0 || tokens !== undefined) && (
                  <span className="muted compare-facts">
                    {tools.length > 0 ? ` → ${tools.join(", ")}` : ""}
                    {tokens !== undefined ? ` · ${formatTokens(tokens)} tokens` : ""}
                  </span>
                )}
              </li>
            );
          })}
        </ol>
      )}
      <ShowMore page={PAGE} remaining={entries.length - shown} noun="entries" onMore={() => setShown((n) => n + PAGE)} />
    </section>
  );
}
