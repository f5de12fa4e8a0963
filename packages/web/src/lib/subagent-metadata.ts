/**
 * What a `subagent_result` keeps of its branch, projected for display once (as the seed's store
 * does) so the card never parses raw metadata: the branch's timeline, the evidence its tools
 * returned, the tools it ran, and where its summary came from. Entries written by other producers
 * may hold anything here, so every field is checked and what does not fit is left out.
 */
export interface SubagentDetails {
  processEvents: Array<{ type: string; label: string }>;
  evidence: Array<{ tool: string; ok: boolean; excerpt: string }>;
  routes: Array<{ tool: string; calls: number; errors: number; totalDurationMs: number }>;
  /** "final_text" and the like: which source the summary was taken from, and which the branch offered. */
  source?: { selected: string; offered: string[]; fallback: boolean };
}

type Raw = Record<string, unknown>;
const obj = (v: unknown): Raw | undefined => (typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Raw) : undefined);
const num = (v: unknown): number => (typeof v === "number" && Number.isFinite(v) ? v : 0);
const str = (v: unknown): string => (typeof v === "string" ? v : "");

function eventLabel(e: Raw): string {
  const ms = typeof e.durationMs === "number" ? ` · ${Math.round(e.durationMs)} ms` : "";
  switch (e.type) {
    case "llm_end":
      return `model call${e.model ? ` (${str(e.model)})` : ""}${ms}`;
    case "tool_start":
      return `${str(e.tool)} started`;
    case "tool_end":
      return `${str(e.tool)} ${e.isError ? "failed" : "done"}${ms}`;
    default:
      return str(e.type);
  }
}

export function subagentDetails(metadata: unknown): SubagentDetails {
  const m = (metadata ?? {}) as Raw;
  const list = (v: unknown) => (Array.isArray(v) ? v.map(obj).filter((x): x is Raw => x !== undefined) : []);
  const details: SubagentDetails = {
    processEvents: list(m.processEvents).map((e) => ({ type: str(e.type), label: eventLabel(e) })),
    evidence: list(m.evidenceSummaries).map((e) => ({ tool: str(e.tool), ok: e.ok !== false, excerpt: str(e.excerpt) })),
    routes: list(m.toolRuntimeRoutes)
      .filter((r) => typeof r.tool === "string")
      .map((r) => ({ tool: str(r.tool), calls: num(r.calls), errors: num(r.errors), totalDurationMs: num(r.totalDurationMs) })),
  };
  const diagnostics = obj(obj(m.subagentProjection)?.diagnostics);
  if (diagnostics && typeof diagnostics.selectedSource === "string") {
    details.source = {
      selected: diagnostics.selectedSource,
      offered: Array.isArray(diagnostics.inputSources) ? diagnostics.inputSources.map(str).filter(Boolean) : [],
      fallback: diagnostics.fallbackUsed === true,
    };
  }
  return details;
}
