import { Handle, type Node, type NodeProps, Position } from "@xyflow/react";
import type { DagNode } from "./build-dag.js";

export type GoalFlowNode = Node<{ node: DagNode }, "goal">;

/** A goal result (or START, or a sub-trace branch): number, title, status. */
export function GoalNode({ data }: NodeProps<GoalFlowNode>) {
  const n = data.node;
  const classes = ["goal-node", `kind-${n.kind}`, `status-${n.status}`];
  if (n.abandoned) classes.push("abandoned");
  return (
    <div className={classes.join(" ")} data-node-id={n.id} title={n.summary ?? n.title}>
      {n.kind !== "start" && <Handle type="target" position={Position.Left} isConnectable={false} />}
      {n.kind === "start" ? (
        <span>START</span>
      ) : (
        <>
          <div className="goal-title">
            {n.display && <span className="muted">{n.kind === "subtrace" ? "⑂ " : `${n.display}. `}</span>}
            {n.title}
          </div>
          <div className="muted">
            {n.abandoned ? "abandoned" : n.status.replace("_", " ")}
            {n.kind === "subtrace" ? " · sub-trace" : ""}
          </div>
        </>
      )}
      <Handle type="source" position={Position.Right} isConnectable={false} />
    </div>
  );
}
