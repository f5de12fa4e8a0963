import { BaseEdge, type Edge, EdgeLabelRenderer, type EdgeProps, getBezierPath } from "@xyflow/react";
import { Minus, Plus } from "lucide-react";
import { type DagEdge, type DagGroup, statsText } from "./build-dag.js";

export type GoalFlowEdge = Edge<
  { edge: DagEdge; selected: boolean; onSelect: (e: DagEdge) => void; onToggle: (key: string) => void },
  "goal"
>;

/** The work between two results: its stats as a label that selects it, and an expand/collapse control. */
export function GoalEdge({
  id,
  sourceX,
  sourceY,
  targetX,
  targetY,
  sourcePosition,
  targetPosition,
  data,
  markerEnd,
}: EdgeProps<GoalFlowEdge>) {
  const [path, labelX, labelY] = getBezierPath({ sourceX, sourceY, targetX, targetY, sourcePosition, targetPosition });
  if (!data) return <BaseEdge id={id} path={path} />;
  const { edge, selected, onSelect, onToggle } = data;
  const showLabel = edge.stats !== undefined || edge.toggleKey !== undefined || edge.groups !== undefined;
  return (
    <>
      <BaseEdge
        id={id}
        path={path}
        {...(markerEnd ? { markerEnd } : {})}
        style={{ strokeDasharray: edge.abandoned ? "6 4" : undefined, opacity: edge.abandoned ? 0.5 : 1 }}
      />
      {showLabel && (
        <EdgeLabelRenderer>
          <div
            className={`edge-label nodrag nopan${edge.abandoned ? " abandoned" : ""}${selected ? " selected" : ""}`}
            style={{ transform: `translate(-50%, -50%) translate(${labelX}px, ${labelY}px)` }}
            data-edge-id={edge.id}
            data-stats-kind={edge.statsKind}
          >
            {edge.groups?.map((group) => (
              <GroupControl key={group.toggleKey} edge={edge} group={group} onSelect={onSelect} onToggle={onToggle} />
            ))}
            {edge.toggleKey && (
              <button
                type="button"
                aria-expanded={edge.expanded}
                aria-label={`${edge.expanded ? "Collapse" : "Expand"} ${edge.title}`}
                onClick={() => onToggle(edge.toggleKey as string)}
              >
                {edge.expanded ? <Minus size={12} aria-hidden="true" /> : <Plus size={12} aria-hidden="true" />}
              </button>
            )}
            <button
              type="button"
              className="link edge-stats"
              aria-label={`${statsText(edge.stats) || "messages"}: messages of ${edge.title}`}
              onClick={() => onSelect(edge)}
            >
              {statsText(edge.stats) || "messages"}
            </button>
          </div>
        </EdgeLabelRenderer>
      )}
    </>
  );
}

/**
 * An expanded goal, whose node gave way to its sub-goals: its collapse control, and its own messages
 * (those filed under the goal itself, not under a sub-goal).
 */
function GroupControl({
  edge,
  group,
  onSelect,
  onToggle,
}: {
  edge: DagEdge;
  group: DagGroup;
  onSelect: (e: DagEdge) => void;
  onToggle: (key: string) => void;
}) {
  const own: DagEdge = {
    id: `${edge.id}#${group.goalId}`,
    source: edge.source,
    target: edge.target,
    traceId: group.traceId,
    goalId: group.goalId,
    title: group.title,
    stats: group.stats,
    statsKind: "self",
    expanded: true,
    abandoned: edge.abandoned,
  };
  // The visible text leads the accessible name, so a voice user can say what they see.
  const text = `${group.title.split(" ")[0]}: ${statsText(group.stats, false) || "messages"}`;
  return (
    <span className="edge-group" data-stats-kind="self">
      <button type="button" aria-expanded={true} aria-label={`Collapse ${group.title}`} onClick={() => onToggle(group.toggleKey)}>
        <Minus size={12} aria-hidden="true" />
      </button>
      <button
        type="button"
        className="link edge-stats"
        aria-label={`${text}: messages of ${group.title} itself`}
        onClick={() => onSelect(own)}
      >
        {text}
      </button>
    </span>
  );
}
