import type { Snapshot } from "@arbor/core";

export function StepTrace({ sessionId }: { sessionId: string; snapshot: Snapshot | undefined }) {
  return <p>Steps {sessionId}</p>;
}
