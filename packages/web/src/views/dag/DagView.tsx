import "@xyflow/react/dist/style.css";
import type { MessageEntry } from "@arbor/core";
import { applyNodeChanges, Background, Controls, MarkerType, type NodeChange, ReactFlow } from "@xyflow/react";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { api } from "../../api/client.js";
import { parseMessages, parseTrace } from "../../api/wire.js";
import { truncate } from "../../lib/format.js";
import { toggled } from "../../lib/toggle-set.js";
import { TraceWatch, type WatchMessage, type WatchState } from "../../lib/trace-watch.js";
import { ErrorAlert } from "../common/ErrorAlert.js";
import { ShowMore } from "../common/ShowMore.js";
import { plain } from "../tree/flatten.js";
import { buildDag, type DagEdge, statsText } from "./build-dag.js";
import { describeEvent, type EventLine } from "./describe-event.js";
import { GoalEdge, type GoalFlowEdge } from "./GoalEdge.js";
import { type GoalFlowNode, GoalNode } from "./GoalNode.js";
import { boundsOf, FitOnChange, handlesFor, MIN_READABLE_ZOOM, type Size } from "./geometry.js";
import { applyAffectedGoals, type GoalTreeView, normalizeGoalTree } from "./goals.js";
import { type LayoutCache, layoutToFit, NODE_SIZE } from "./layout.js";

const nodeTypes = { goal: GoalNode };
const edgeTypes = { goal: GoalEdge };
/** An edge's messages listed at first and per "show more": a goal of a long session holds thousands. */
const MESSAGES_PAGE = 200;

/** The first messages of an edge, and how many it has in all. */
interface MessagePrefix {
  list: MessageEntry[];
  total: number;
}

function parseMessagePrefix(value: unknown): MessagePrefix {
  const list = parseMessages<MessageEntry>(value);
  const total = (value as { total?: unknown }).total;
  // A server without `limit` sends every message and no total.
  return { list, total: typeof total === "number" ? total : list.length };
}
/** Live events kept for the panel (the newest last). */
const EVENT_LOG = 200;

interface LoggedEvent {
  id: number;
  event: string;
  traceId: string;
  line: EventLine;
}

/** The goal DAG of a trace, kept live by the watch socket. */
export function DagView({ traceId }: { traceId: string }) {
  const [tree, setTree] = useState<GoalTreeView | null | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [expanded, setExpanded] = useState<ReadonlySet<string>>(() => new Set());
  const [subTrees, setSubTrees] = useState<ReadonlyMap<string, GoalTreeView | null>>(() => new Map());
  const [selected, setSelected] = useState<DagEdge | undefined>();
  const [messages, setMessages] = useState<MessagePrefix | undefined>();
  const [flow, setFlow] = useState<{ nodes: GoalFlowNode[]; edges: GoalFlowEdge[] }>({ nodes: [], edges: [] });
  /** The size React Flow last reported for each node. */
  const measuredSizes = useRef(new Map<string, Size>());
  const layouts = useRef<LayoutCache>(new Map());
  const [live, setLive] = useState<WatchState>("connecting");
  const [events, setEvents] = useState<LoggedEvent[]>([]);
  const [canvasSize, setCanvasSize] = useState({ width: 0, height: 0 });
  const canvas = useRef<HTMLDivElement>(null);

  useEffect(() => {
    const el = canvas.current;
    if (!el) return;
    // Rounded to 50 px so a scrollbar or a pixel of jitter does not lay the graph out again.
    const observer = new ResizeObserver(([entry]) => {
      if (!entry) return;
      const width = Math.round(entry.contentRect.width / 50) * 50;
      const height = Math.round(entry.contentRect.height / 50) * 50;
      setCanvasSize((cur) => (cur.width === width && cur.height === height ? cur : { width, height }));
    });
    observer.observe(el);
    return () => observer.disconnect();
  }, []);
  const refetchTimer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);

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
        const logged = { id: m.event_id, event: m.event, traceId: String(m.trace_id ?? traceId), line: describeEvent(m) };
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
      setExpanded((prev) => toggled(prev, key));
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

  const selectedRef = useRef<DagEdge | undefined>(undefined);
  /** The first `count` messages of an edge, with how many it has; a newer choice of edge wins. */
  const loadMessages = useCallback((edge: DagEdge, count: number) => {
    // The panel shows session entries (with their parts), not the seed's flat message records.
    const params = new URLSearchParams({ format: "entries", limit: String(count) });
    if (edge.goalId) params.set("goal_id", edge.goalId);
    // A collapsed edge stands for the goal and everything under it.
    if (edge.goalId && edge.statsKind === "cumulative") params.set("descendants", "true");
    api(`/api/traces/${encodeURIComponent(edge.traceId)}/messages?${params}`, parseMessagePrefix).then(
      (page) => setMessages((cur) => (selectedRef.current === edge ? page : cur)),
      (err: unknown) => setError(String(err)),
    );
  }, []);

  const select = useCallback(
    (edge: DagEdge) => {
      selectedRef.current = edge;
      setSelected(edge);
      setMessages(undefined);
      loadMessages(edge, MESSAGES_PAGE);
    },
    [loadMessages],
  );

  const dag = useMemo(() => buildDag(traceId, tree ?? null, expanded, subTrees), [traceId, tree, expanded, subTrees]);

  useEffect(() => {
    let live = true;
    layoutToFit(dag, canvasSize, layouts.current).then(({ positions, direction }) => {
      if (!live) return;
      const vertical = direction === "DOWN";
      setFlow((prev) => {
        // Each node states its handles (where its edges meet it) rather than leaving React Flow to
        // measure them: a controlled graph whose nodes are given anew on each layout can lose
        // measured handles, and then its edges are not drawn at all. The handles follow the node's
        // measured size (see onNodesChange), or the size the layout reserved until it is measured.
        const before = new Map(prev.nodes.map((n) => [n.id, n]));
        return {
          nodes: dag.nodes.map((n) => {
            const measured = measuredSizes.current.get(n.id) ?? before.get(n.id)?.measured;
            const size = measured?.width && measured.height ? (measured as Size) : NODE_SIZE[n.kind];
            return {
              id: n.id,
              type: "goal" as const,
              position: positions.get(n.id) ?? { x: 0, y: 0 },
              data: { node: n, vertical },
              initialWidth: NODE_SIZE[n.kind].width,
              initialHeight: NODE_SIZE[n.kind].height,
              handles: handlesFor(size, vertical),
              draggable: false,
              connectable: false,
              ...(measured ? { measured } : {}),
            };
          }),
          edges: dag.edges.map((e) => ({
            id: e.id,
            type: "goal",
            source: e.source,
            target: e.target,
            markerEnd: { type: MarkerType.ArrowClosed },
            data: { edge: e, selected: false, onSelect: select, onToggle: toggle },
          })),
        };
      });
    });
    return () => {
      live = false;
    };
  }, [dag, canvasSize, select, toggle]);

  // The graph's shape: a change (expand, collapse, a new goal) fits the view again.
  const shape = useMemo(
    () => `${flow.nodes[0]?.data.vertical ? "down" : "right"}:${flow.nodes.map((n) => n.id).join("|")}`,
    [flow.nodes],
  );
  const bounds = useMemo(() => boundsOf(flow.nodes), [flow.nodes]);

  // The graph is controlled (its nodes come from the layout), so the sizes React Flow measures are
  // kept in the nodes given back to it.
  const onNodesChange = useCallback((changes: NodeChange<GoalFlowNode>[]) => {
    const resized = new Map<string, Size>();
    for (const c of changes) if (c.type === "dimensions" && c.dimensions) resized.set(c.id, c.dimensions);
    // Noted at once, not only in the next state: a layout that lands before that state still uses them.
    for (const [id, size] of resized) measuredSizes.current.set(id, size);
    setFlow((f) => ({
      ...f,
      nodes: applyNodeChanges(changes, f.nodes).map((n) => {
        const size = resized.get(n.id);
        return size ? { ...n, handles: handlesFor(size, n.data.vertical) } : n;
      }),
    }));
  }, []);

  const edges = useMemo(
    () => flow.edges.map((e) => (e.data && selected?.id === e.id ? { ...e, data: { ...e.data, selected: true } } : e)),
    [flow.edges, selected],
  );

  return (
    <div className="dag">
      <div className="dag-canvas" data-testid="dag-canvas" ref={canvas}>
        {tree === null && (
          <p className="muted" style={{ padding: "1rem" }}>
            No plan yet: this trace has no goal tree. It appears here once the agent calls the goal tool.
          </p>
        )}
        <ReactFlow
          nodes={flow.nodes}
          onNodesChange={onNodesChange}
          edges={edges}
          nodeTypes={nodeTypes}
          edgeTypes={edgeTypes}
          minZoom={MIN_READABLE_ZOOM}
          nodesDraggable={false}
          nodesConnectable={false}
          proOptions={{ hideAttribution: true }}
          aria-label="Goal graph"
        >
          <Background />
          <Controls showInteractive={false} />
          <FitOnChange shape={shape} bounds={bounds} />
        </ReactFlow>
      </div>
      <aside className="dag-side" aria-label="Goal details">
        <p className={`live-indicator ${live === "live" ? "on" : "off"}`} data-testid="live-state">
          {live === "live" ? "Live" : live}
          {events.length > 0 && <span className="muted"> · last event {events[events.length - 1]?.id}</span>}
        </p>
        <ErrorAlert error={error} />
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
            {messages?.total === 0 && <p className="muted">No messages under this goal yet.</p>}
            <ol className="goal-messages">
              {messages?.list.map((m) => (
                <li key={m.id} data-entry-id={m.id}>
                  <span className="badge">{m.message.role}</span> {truncate(messageText(m), 240)}
                </li>
              ))}
            </ol>
            {messages && (
              <ShowMore
                page={MESSAGES_PAGE}
                remaining={messages.total - messages.list.length}
                noun="messages"
                onMore={() => loadMessages(selected, messages.list.length + MESSAGES_PAGE)}
              />
            )}
          </section>
        ) : (
          <p className="muted">Choose an edge's label to read the messages of its goal; + and − expand and collapse.</p>
        )}
        <details>
          <summary>Live events ({events.length})</summary>
          <ol className="event-log" data-testid="event-log">
            {events.map((e) => (
              <li key={`${e.traceId}:${e.id}`} data-event-id={e.id} data-event={e.event} className={`event-${e.line.kind}`}>
                <span className="muted">#{e.id}</span> {e.line.text}
                {e.traceId !== traceId ? (
                  <span className="muted"> (in {e.traceId.slice(e.traceId.lastIndexOf("@") + 1)})</span>
                ) : (
                  ""
                )}
              </li>
            ))}
          </ol>
        </details>
      </aside>
    </div>
  );
}

/** A message as one line of the edge's list: plain text, as the tree's rows are. */
function messageText(m: MessageEntry): string {
  if (m.message.description) return plain(m.message.description);
  return plain(
    m.message.content
      .map((p) => (p.type === "text" || p.type === "reasoning" ? p.text : p.type === "tool-call" ? `→ ${p.toolName}` : ""))
      .join(" "),
  );
}
