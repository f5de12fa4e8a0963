import ELK from "elkjs/lib/elk.bundled.js";
import type { Dag } from "./build-dag.js";

/** Node sizes the layout reserves; GoalNode's CSS draws within them. */
export const NODE_SIZE = {
  start: { width: 90, height: 40 },
  goal: { width: 190, height: 64 },
  subtrace: { width: 190, height: 64 },
};

export interface Positioned {
  positions: Map<string, { x: number; y: number }>;
}

const elk = new ELK();

/** Which way the plan flows: left to right, or top down on a narrow canvas where a row would not fit readably. */
export type DagDirection = "RIGHT" | "DOWN";

/** Layered layout (ELK), with room between layers for the edge labels. */
export async function layoutDag(dag: Dag, direction: DagDirection = "RIGHT"): Promise<Positioned> {
  const graph = await elk.layout({
    id: "root",
    layoutOptions: {
      "elk.algorithm": "layered",
      "elk.direction": direction,
      "elk.layered.spacing.nodeNodeBetweenLayers": direction === "RIGHT" ? "230" : "90",
      "elk.spacing.nodeNode": "50",
      "elk.layered.nodePlacement.strategy": "BRANDES_KOEPF",
      "elk.layered.considerModelOrder.strategy": "NODES_AND_EDGES",
    },
    children: dag.nodes.map((n) => ({ id: n.id, ...NODE_SIZE[n.kind] })),
    edges: dag.edges.map((e) => ({ id: e.id, sources: [e.source], targets: [e.target] })),
  });
  const positions = new Map<string, { x: number; y: number }>();
  for (const child of graph.children ?? []) positions.set(child.id, { x: child.x ?? 0, y: child.y ?? 0 });
  return { positions };
}

/** Size of the laid-out graph. */
export function extent(positions: Positioned["positions"], dag: Dag): { width: number; height: number } {
  let width = 0;
  let height = 0;
  for (const n of dag.nodes) {
    const p = positions.get(n.id);
    if (!p) continue;
    width = Math.max(width, p.x + NODE_SIZE[n.kind].width);
    height = Math.max(height, p.y + NODE_SIZE[n.kind].height);
  }
  return { width, height };
}

/**
 * Lays the plan out both ways and keeps the one that fits the canvas at the larger zoom: a long
 * chain flows down a narrow canvas and across a wide one, so words stay as big as the space allows.
 */
export async function layoutToFit(
  dag: Dag,
  canvas: { width: number; height: number },
): Promise<Positioned & { direction: DagDirection }> {
  const [across, down] = await Promise.all([layoutDag(dag, "RIGHT"), layoutDag(dag, "DOWN")]);
  const zoom = (p: Positioned) => {
    const { width, height } = extent(p.positions, dag);
    return Math.min(canvas.width / Math.max(1, width), canvas.height / Math.max(1, height));
  };
  // Ties (and an unmeasured canvas) keep the familiar left-to-right reading.
  return zoom(down) > zoom(across) * 1.05 ? { ...down, direction: "DOWN" } : { ...across, direction: "RIGHT" };
}
