import type { Snapshot } from "@arbor/core";

export function TreeView(_props: {
  snapshot: Snapshot;
  reload: () => Promise<void>;
  onContinue: (from: { entryId: string; description: string }) => void;
  onForked: (sessionId: string) => void;
}) {
  return <p>Tree</p>;
}
