import ElkBundled from "elkjs/lib/elk.bundled.js";
import type { ELK } from "elkjs/lib/elk-api.js";
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

// The bundle's default export is ELK's constructor; TypeScript under Node's module rules (the tests')
// sees the CommonJS module object there instead, so its type is stated here.
const elk = new (ElkBundled as unknown as new () => ELK)();

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

/**
 * The graph's size in each direction, estimated from its layers (ELK's layered layout puts each
 * node one layer past its furthest parent) and the layout's spacings: enough to choose a direction
 * without laying the graph out both ways.
 */
export function estimatedExtents(dag: Dag): Record<DagDirection, { width: number; height: number }> {
  const layer = new Map<string, number>();
  const parents = new Map<string, string[]>();
  for (const e of dag.edges) parents.set(e.target, [...(parents.get(e.target) ?? []), e.source]);
  const layerOf = (id: string, seen: Set<string>): number => {
    const known = layer.get(id);
    if (known !== undefined) return known;
    if (seen.has(id)) return 0;
    seen.add(id);
    const l = Math.max(-1, ...(parents.get(id) ?? []).map((p) => layerOf(p, seen))) + 1;
    layer.set(id, l);
    return l;
  };
  const perLayer = new Map<number, number>();
  for (const n of dag.nodes) {
    const l = layerOf(n.id, new Set());
    perLayer.set(l, (perLayer.get(l) ?? 0) + 1);
  }
  const layers = Math.max(1, perLayer.size);
  const breadth = Math.max(1, ...perLayer.values());
  const { width, height } = NODE_SIZE.goal;
  return {
    RIGHT: { width: layers * width + (layers - 1) * 230, height: breadth * height + (breadth - 1) * 50 },
    DOWN: { width: breadth * width + (breadth - 1) * 50, height: layers * height + (layers - 1) * 90 },
  };
}

/**
 * Layouts already made, by direction and graph (collapsing back to a shape seen before costs
 * nothing). The view that lays graphs out owns one, so nothing is kept past it.
 */
export type LayoutCache = Map<string, Positioned>;
const MADE_KEPT = 50;

/** Room ELK leaves around the graph, which the chain layout keeps too. */
const MARGIN = 12;

/**
 * A graph that is one chain (each node at most one edge in and one out, as a plan without
 * abandoned goals or parallel sub-traces is) laid out as ELK lays a chain out: one node a layer,
 * centred on one line, the same spacings. Undefined for any other graph.
 */
export function chainLayout(dag: Dag, direction: DagDirection): Positioned | undefined {
  const next = new Map<string, string>();
  const hasParent = new Set<string>();
  for (const e of dag.edges) {
    if (next.has(e.source) || hasParent.has(e.target)) return undefined;
    next.set(e.source, e.target);
    hasParent.add(e.target);
  }
  const kindOf = new Map(dag.nodes.map((n) => [n.id, n.kind]));
  const heads = dag.nodes.filter((n) => !hasParent.has(n.id));
  if (heads.length !== 1) return undefined;
  const order: string[] = [];
  for (let id: string | undefined = heads[0]?.id; id !== undefined; id = next.get(id)) {
    if (order.length > dag.nodes.length) return undefined;
    order.push(id);
  }
  if (order.length !== dag.nodes.length) return undefined;
  const sizes = order.map((id) => NODE_SIZE[kindOf.get(id) ?? "goal"]);
  const across = direction === "RIGHT";
  // The line the nodes are centred on, half the widest node (across the flow) from the margin.
  const thickest = Math.max(...sizes.map((z) => (across ? z.height : z.width)));
  const positions = new Map<string, { x: number; y: number }>();
  let along = MARGIN;
  order.forEach((id, i) => {
    const size = sizes[i] as { width: number; height: number };
    const side = MARGIN + (thickest - (across ? size.height : size.width)) / 2;
    positions.set(id, across ? { x: along, y: side } : { x: side, y: along });
    along += (across ? size.width : size.height) + (across ? 230 : 90);
  });
  return { positions };
}

async function layoutOnce(dag: Dag, direction: DagDirection, made: LayoutCache): Promise<Positioned> {
  const chain = chainLayout(dag, direction);
  if (chain) return chain;
  const key = `${direction}|${dag.nodes.map((n) => `${n.id}:${n.kind}`).join(",")}|${dag.edges.map((e) => e.id).join(",")}`;
  const kept = made.get(key);
  if (kept) return kept;
  const laid = await layoutDag(dag, direction);
  made.set(key, laid);
  if (made.size > MADE_KEPT) made.delete(made.keys().next().value as string);
  return laid;
}

/**
 * Lays the plan out the way that fits the canvas at the larger zoom: a long chain flows down a
 * narrow canvas and across a wide one, so words stay as big as the space allows. The direction is
 * chosen from the graph's estimated size, and the layout made once (a chain without ELK at all):
 * ELK takes tens of milliseconds a layout, which an expand or collapse should not spend twice.
 */
export async function layoutToFit(
  dag: Dag,
  canvas: { width: number; height: number },
  made: LayoutCache,
): Promise<Positioned & { direction: DagDirection }> {
  const estimate = estimatedExtents(dag);
  const zoom = ({ width, height }: { width: number; height: number }) =>
    Math.min(canvas.width / Math.max(1, width), canvas.height / Math.max(1, height));
  // Ties (and an unmeasured canvas) keep the familiar left-to-right reading.
  const direction: DagDirection = zoom(estimate.DOWN) > zoom(estimate.RIGHT) * 1.05 ? "DOWN" : "RIGHT";
  return { ...(await layoutOnce(dag, direction, made)), direction };
}
