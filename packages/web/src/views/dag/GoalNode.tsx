import { Handle, type Node, type NodeProps, Position } from "@xyflow/react";
import { Ban, CircleCheck, CircleDashed, CircleDot, CircleX, GitBranch, Play } from "lucide-react";
import type { DagNode } from "./build-dag.js";

export type GoalFlowNode = Node<{ node: DagNode; vertical: boolean }, "goal">;

/** A goal result (or START, or a sub-trace branch): number, title, status. */
export function GoalNode({ data }: NodeProps<GoalFlowNode>) {
  const n = data.node;
  const [into, out] = data.vertical ? [Position.Top, Position.Bottom] : [Position.Left, Position.Right];
  const classes = ["goal-node", `kind-${n.kind}`, `status-${n.status}`];
  if (n.abandoned) classes.push("abandoned");
  return (
    <div className={classes.join(" ")} data-node-id={n.id} title={n.summary ?? n.title}>
      {n.kind !== "start" && <Handle type="target" position={into} isConnectable={false} />}
      {n.kind === "start" ? (
        <span className="goal-start">
          <Play size={14} aria-hidden="true" /> START
        </span>
      ) : (
        <>
          <div className="goal-title">
            {n.kind === "subtrace" ? (
              <GitBranch size={14} aria-label="sub-trace" className="goal-icon" />
            ) : (
              n.display && <span className="muted">{`${n.display}. `}</span>
            )}
            {n.title}
          </div>
          <div className="muted goal-status">
            <StatusIcon status={n.status} abandoned={n.abandoned === true} />
            {n.abandoned ? "abandoned" : n.status.replace("_", " ")}
            {n.kind === "subtrace" ? " · sub-trace" : ""}
          </div>
        </>
      )}
      <Handle type="source" position={out} isConnectable={false} />
    </div>
  );
}

function StatusIcon({ status, abandoned }: { status: string; abandoned: boolean }) {
  const Icon = abandoned
    ? Ban
    : status === "completed"
      ? CircleCheck
      : status === "in_progress" || status === "running"
        ? CircleDot
        : status === "failed" || status === "aborted"
          ? CircleX
          : CircleDashed;
  return <Icon size={12} aria-hidden="true" />;
}
