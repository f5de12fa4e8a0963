import { getViewportForBounds, type NodeHandle, Position, type Rect, useReactFlow, useStore, type Viewport } from "@xyflow/react";
import { useEffect, useRef } from "react";
import type { GoalFlowNode } from "./GoalNode.js";
import { NODE_SIZE } from "./layout.js";

/** Where the goal graph sits on its canvas: where edges meet nodes, the box the nodes take, and the view that fits it. */

/**
 * The smallest zoom the view goes to: node titles (12.75 px at the page's 15 px) and edge labels
 * (12 px) stay at 10 px or more. A plan larger than the view pans, and collapsing its branches is the summary, instead of
 * shrinking its words out of reach.
 */
export const MIN_READABLE_ZOOM = 0.85;
const FIT = { padding: 0.12, maxZoom: 1.2, minZoom: MIN_READABLE_ZOOM } as const;

export interface Size {
  width: number;
  height: number;
}

/**
 * Where edges meet a node of this size: the middle of its top and bottom when the plan flows down,
 * of its left and right sides when it flows across (where GoalNode draws its handles). One pixel
 * boxes, placed so React Flow's edge ends fall on the node's edge.
 */
export function handlesFor({ width, height }: Size, vertical: boolean): NodeHandle[] {
  return vertical
    ? [
        { type: "target", position: Position.Top, x: width / 2 - 0.5, y: 0, width: 1, height: 1 },
        { type: "source", position: Position.Bottom, x: width / 2 - 0.5, y: height - 1, width: 1, height: 1 },
      ]
    : [
        { type: "target", position: Position.Left, x: 0, y: height / 2 - 0.5, width: 1, height: 1 },
        { type: "source", position: Position.Right, x: width - 1, y: height / 2 - 0.5, width: 1, height: 1 },
      ];
}

/** The box the laid-out nodes take, from their positions and the sizes the layout reserved for them. */
export function boundsOf(nodes: readonly GoalFlowNode[]): Rect | undefined {
  if (nodes.length === 0) return undefined;
  let [left, top, right, bottom] = [
    Number.POSITIVE_INFINITY,
    Number.POSITIVE_INFINITY,
    Number.NEGATIVE_INFINITY,
    Number.NEGATIVE_INFINITY,
  ];
  for (const n of nodes) {
    const size = NODE_SIZE[n.data.node.kind];
    left = Math.min(left, n.position.x);
    top = Math.min(top, n.position.y);
    right = Math.max(right, n.position.x + size.width);
    bottom = Math.max(bottom, n.position.y + size.height);
  }
  return { x: left, y: top, width: right - left, height: bottom - top };
}

/** Room kept at the canvas's edge when the graph is larger than it. */
const EDGE_ROOM = 16;

/**
 * The view that shows `bounds` in a `width` × `height` canvas at the largest zoom up to FIT's
 * maximum, centred. A graph too large for the canvas even at the smallest readable zoom starts at
 * its top left instead (where START is), rather than being cut at both ends.
 */
function fittedViewport(bounds: Rect, width: number, height: number): Viewport {
  const view = getViewportForBounds(bounds, width, height, FIT.minZoom, FIT.maxZoom, FIT.padding);
  if (bounds.width * view.zoom > width - 2 * EDGE_ROOM) view.x = EDGE_ROOM - bounds.x * view.zoom;
  if (bounds.height * view.zoom > height - 2 * EDGE_ROOM) view.y = EDGE_ROOM - bounds.y * view.zoom;
  return view;
}

/**
 * Fits the view when the graph's shape or the canvas's size changes. The view is computed from the
 * layout's own positions and set directly: React Flow's fitView waits for node measurements that a
 * controlled graph (nodes passed as props, no change handler) never reports back, so it never ran.
 */
export function FitOnChange({ shape, bounds }: { shape: string; bounds: Rect | undefined }) {
  const { setViewport } = useReactFlow();
  const width = useStore((s) => s.width);
  const height = useStore((s) => s.height);
  const fitted = useRef("");
  useEffect(() => {
    if (!bounds || width === 0 || height === 0) return;
    const key = `${shape}@${width}x${height}`;
    if (fitted.current === key) return;
    fitted.current = key;
    void setViewport(fittedViewport(bounds, width, height));
  }, [shape, bounds, width, height, setViewport]);
  return null;
}
