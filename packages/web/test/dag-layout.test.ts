import { describe, expect, it } from "vitest";
import type { Dag, DagNode } from "../src/views/dag/build-dag.js";
import { chainLayout, layoutDag } from "../src/views/dag/layout.js";

const node = (id: string, kind: DagNode["kind"]): DagNode => ({ id, kind, title: id, display: "", status: "", abandoned: false });
const edge = (source: string, target: string) => ({
  id: `${source}->${target}`,
  source,
  target,
  traceId: "t",
  title: "",
  expanded: false,
  abandoned: false,
});

/** START, then goals and a sub-trace in one line: the common shape of a plan. */
const chain: Dag = {
  nodes: [node("start", "start"), node("1", "goal"), node("sub", "subtrace"), node("2", "goal"), node("3", "goal")],
  edges: [edge("start", "1"), edge("1", "sub"), edge("sub", "2"), edge("2", "3")],
};

describe("the goal graph's layout", () => {
  for (const direction of ["RIGHT", "DOWN"] as const) {
    it(`lays a chain out where ELK does (${direction})`, async () => {
      const elk = await layoutDag(chain, direction);
      const quick = chainLayout(chain, direction);
      expect(quick).toBeDefined();
      for (const n of chain.nodes) {
        const a = elk.positions.get(n.id);
        const b = quick?.positions.get(n.id);
        expect({ id: n.id, x: Math.round(b?.x ?? -1), y: Math.round(b?.y ?? -1) }).toEqual({
          id: n.id,
          x: Math.round(a?.x ?? -2),
          y: Math.round(a?.y ?? -2),
        });
      }
    });
  }

  it("leaves a graph with a fork (an abandoned goal, parallel sub-traces) to ELK", () => {
    const fork: Dag = { nodes: [...chain.nodes, node("x", "goal")], edges: [...chain.edges, edge("1", "x")] };
    expect(chainLayout(fork, "RIGHT")).toBeUndefined();
  });
});
