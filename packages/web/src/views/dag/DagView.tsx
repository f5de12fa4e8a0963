import "@xyflow/react/dist/style.css";
import type { MessageEntry } from "@arbor/core";
import { Background, Controls, MarkerType, ReactFlow, type ReactFlowInstance } from "@xyflow/react";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { api } from "../../api/client.js";
import { parseMessages, parseTrace } from "../../api/wire.js";
import { truncate } from "../../lib/format.js";
import { TraceWatch, type WatchMessage, type WatchState } from "../../lib/trace-watch.js";
import { buildDag, type DagEdge, statsText } from "./build-dag.js";
import { GoalEdge, type GoalFlowEdge } from "./GoalEdge.js";
import { type GoalFlowNode, GoalNode } from "./GoalNode.js";
import { applyAffectedGoals, type GoalTreeView, normalizeGoalTree } from "./goals.js";
import { layoutDag } from "./layout.js";

const nodeTypes = { goal: GoalNode };
const edgeTypes = { goal: GoalEdge };
/** Live events kept for the panel (the newest last). */
const EVENT_LOG = 200;

interface LoggedEvent {
  id: number;
  event: string;
  traceId: string;
}

/** The goal DAG of a trace, kept live by the watch socket. */
export function DagView({ traceId }: { traceId: string }) {
  const [tree, setTree] = useState<GoalTreeView | null | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [expanded, setExpanded] = useState<ReadonlySet<string>>(() => new Set());
  const [subTrees, setSubTrees] = useState<ReadonlyMap<string, GoalTreeView | null>>(() => new Map());
  const [selected, setSelected] = useState<DagEdge | undefined>();
  const [messages, setMessages] = useState<MessageEntry[] | undefined>();
  const [flow, setFlow] = useState<{ nodes: GoalFlowNode[]; edges: GoalFlowEdge[] }>({ nodes: [], edges: [] });
  const [live, setLive] = useState<WatchState>("connecting");
  const [events, setEvents] = useState<LoggedEvent[]>([]);
  const refetchTimer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const flowInstance = useRef<ReactFlowInstance<GoalFlowNode, GoalFlowEdge> | undefined>(undefined);

  const loadTrace = useCallback(
    async (id: string) => normalizeGoalTree((await api(`/api/traces/${encodeURIComponent(id)}`, parseTrace)).goal_tree),
    [],
  );

  const refetch = useCallback(() => {
    // Bursts of goal events (a cascade) become one reload.
    clearTimeout(refetchTimer.current);
    refetchTimer.current = setTimeout(() => {
      loadTrace(traceId).then(setTree, (err: unknown) => setError(String(err)));
    }, 100);
  }, [loadTrace, traceId]);

  useEffect(() => {
    loadTrace(traceId).then(setTree, (err: unknown) => setError(err instanceof Error ? err.message : String(err)));
  }, [loadTrace, traceId]);

  useEffect(() => {
    const onMessage = (m: WatchMessage) => {
      if (typeof m.event_id === "number") {
        const logged = { id: m.event_id, event: m.event, traceId: String(m.trace_id ?? traceId) };
        setEvents((list) => [...list.slice(-(EVENT_LOG - 1)), logged]);
      }
      const own = m.trace_id === undefined || m.trace_id === traceId;
      if (m.event === "connected") {
        const next = normalizeGoalTree(m.goal_tree);
        if (next) setTree(next);
      } else if (m.event === "message_added" && own && Array.isArray(m.affected_goals)) {
        const affected = m.affected_goals as Array<Record<string, unknown>>;
        setTree((t) => (t ? applyAffectedGoals(t, affected) : t));
      } else if (own) {
        refetch();
      } else if (typeof m.trace_id === "string") {
        // A sub-trace's event: refresh its goals if its branch is loaded, and the parent's metadata.
        const sub = m.trace_id;
        setSubTrees((map) => {
          if (map.has(sub)) loadTrace(sub).then((t) => setSubTrees((cur) => new Map(cur).set(sub, t)));
          return map;
        });
        if (m.event !== "message_added") refetch();
      }
    };
    const watch = new TraceWatch(traceId, { onMessage, onState: setLive });
    return () => {
      watch.close();
      clearTimeout(refetchTimer.current);
    };
  }, [traceId, refetch, loadTrace]);

  const toggle = useCallback(
    (key: string) => {
      setExpanded((prev) => {
        const next = new Set(prev);
        if (next.has(key)) next.delete(key);
        else next.add(key);
        return next;
      });
      // A sub-trace's goals are loaded the first time its branch opens.
      if (key.startsWith("sub#")) {
        const sub = key.slice(4);
        setSubTrees((map) => {
          if (!map.has(sub)) {
            loadTrace(sub).then(
              (t) => setSubTrees((cur) => new Map(cur).set(sub, t)),
              (err: unknown) => setError(String(err)),
            );
          }
          return map;
        });
      }
    },
    [loadTrace],
  );

  const select = useCallback((edge: DagEdge) => {
    setSelected(edge);
    setMessages(undefined);
    // The panel shows session entries (with their parts), not the seed's flat message records.
    const params = new URLSearchParams({ format: "entries" });
    if (edge.goalId) params.set("goal_id", edge.goalId);
    // A collapsed edge stands for the goal and everything under it.
    if (edge.goalId && edge.statsKind === "cumulative") params.set("descendants", "true");
    api(`/api/traces/${encodeURIComponent(edge.traceId)}/messages?${params}`, parseMessages<MessageEntry>).then(
      setMessages,
      (err: unknown) => setError(String(err)),
    );
  }, []);

  const dag = useMemo(() => buildDag(traceId, tree ?? null, expanded, subTrees), [traceId, tree, expanded, subTrees]);

  useEffect(() => {
    let live = true;
    layoutDag(dag).then(({ positions }) => {
      if (!live) return;
      setFlow({
        nodes: dag.nodes.map((n) => ({
          id: n.id,
          type: "goal",
          position: positions.get(n.id) ?? { x: 0, y: 0 },
          data: { node: n },
          draggable: false,
          connectable: false,
        })),
        edges: dag.edges.map((e) => ({
          id: e.id,
          type: "goal",
          source: e.source,
          target: e.target,
          markerEnd: { type: MarkerType.ArrowClosed },
          data: { edge: e, selected: false, onSelect: select, onToggle: toggle },
        })),
      });
    });
    return () => {
      live = false;
    };
  }, [dag, select, toggle]);

  // Fit the graph each time its shape changes (fitView on the component only fits the first nodes);
  // a long plan stays readable and pans rather than shrinking to a line.
  useEffect(() => {
    if (flow.nodes.length === 0) return;
    const frame = requestAnimationFrame(() => void flowInstance.current?.fitView({ padding: 0.12, maxZoom: 1.2, minZoom: 0.55 }));
    return () => cancelAnimationFrame(frame);
  }, [flow.nodes]);

  const edges = useMemo(
    () => flow.edges.map((e) => (e.data && selected?.id === e.id ? { ...e, data: { ...e.data, selected: true } } : e)),
    [flow.edges, selected],
  );

  return (
    <div className="dag">
      <div className="dag-canvas" data-testid="dag-canvas">
        {tree === null && (
          <p className="muted" style={{ padding: "1rem" }}>
            No plan yet: this trace has no goal tree. It appears here once the agent calls the goal tool.
          </p>
        )}
        <ReactFlow
          nodes={flow.nodes}
          edges={edges}
          nodeTypes={nodeTypes}
          edgeTypes={edgeTypes}
          onInit={(instance) => {
            flowInstance.current = instance;
          }}
          minZoom={0.2}
          nodesDraggable={false}
          nodesConnectable={false}
          proOptions={{ hideAttribution: true }}
          aria-label="Goal graph"
        >
          <Background />
          <Controls showInteractive={false} />
        </ReactFlow>
      </div>
      <aside className="dag-side" aria-label="Goal details">
        <p className={`live-indicator ${live === "live" ? "on" : "off"}`} data-testid="live-state">
          {live === "live" ? "Live" : live}
          {events.length > 0 && <span className="muted"> · last event {events[events.length - 1]?.id}</span>}
        </p>
        {error && (
          <p role="alert" className="error">
            {error}
          </p>
        )}
        {tree?.mission && (
          <p>
            <strong>Mission:</strong> {tree.mission}
          </p>
        )}
        {selected ? (
          <section aria-label="Edge messages">
            <h2>{selected.title}</h2>
            <p className="muted">
              {statsText(selected.stats)} {selected.statsKind ? `(${selected.statsKind})` : ""}
            </p>
            {!messages && <p className="muted">Loading messages…</p>}
            {messages?.length === 0 && <p className="muted">No messages under this goal yet.</p>}
            <ol className="goal-messages">
              {messages?.map((m) => (
                <li key={m.id} data-entry-id={m.id}>
                  <span className="badge">{m.message.role}</span> {truncate(messageText(m), 240)}
                </li>
              ))}
            </ol>
          </section>
        ) : (
          <p className="muted">Choose an edge's label to read the messages of its goal; + and − expand and collapse.</p>
        )}
        <details>
          <summary>Live events ({events.length})</summary>
          <ol className="event-log" data-testid="event-log">
            {events.map((e) => (
              <li key={`${e.traceId}:${e.id}`} data-event-id={e.id}>
                #{e.id} {e.event}
                {e.traceId !== traceId ? ` (${e.traceId.slice(e.traceId.lastIndexOf("@") + 1)})` : ""}
              </li>
            ))}
          </ol>
        </details>
      </aside>
    </div>
  );
}

function messageText(m: MessageEntry): string {
  if (m.message.description) return m.message.description;
  return m.message.content
    .map((p) => (p.type === "text" || p.type === "reasoning" ? p.text : p.type === "tool-call" ? `→ ${p.toolName}` : ""))
    .join(" ");
}
