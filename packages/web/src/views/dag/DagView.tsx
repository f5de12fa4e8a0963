export function DagView({ traceId }: { traceId: string }) {
  return <p>DAG {traceId}</p>;
}
