import { type Protocol, routesOnly } from "../protocol.js";
import { agUiRoutes } from "./routes.js";

/** `POST /api/ag-ui`: the AG-UI protocol's HttpAgent endpoint, one thread per session. */
export const agUi: Protocol = {
  name: "ag-ui",
  summary: "AG-UI events over SSE (POST /api/ag-ui): RunAgentInput in, RUN_*/TEXT_MESSAGE_*/TOOL_CALL_* out; asks as interrupts.",
  mount: (ctx) => routesOnly(agUiRoutes(ctx)),
};
