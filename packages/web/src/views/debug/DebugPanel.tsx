export function DebugPanel({ sessionId }: { sessionId: string }) {
  return <p>Debug {sessionId}</p>;
}
