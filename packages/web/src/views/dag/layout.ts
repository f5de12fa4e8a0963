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

/** Left-to-right layered layout (ELK), with room between layers for the edge labels. */
export async function layoutDag(dag: Dag): Promise<Positioned> {
  const graph = await elk.layout({
    id: "root",
    layoutOptions: {
      "elk.algorithm": "layered",
      "elk.direction": "RIGHT",
      "elk.layered.spacing.nodeNodeBetweenLayers": "230",
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
