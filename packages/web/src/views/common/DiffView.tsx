/** One line of a unified diff and how it reads: added, removed, a hunk header, a file header or context. */
type LineKind = "add" | "del" | "hunk" | "file" | "ctx";

function kindOf(line: string): LineKind {
  if (line.startsWith("+++") || line.startsWith("---") || line.startsWith("diff ") || line.startsWith("index ")) return "file";
  if (line.startsWith("@@")) return "hunk";
  if (line.startsWith("+")) return "add";
  if (line.startsWith("-")) return "del";
  return "ctx";
}

/** A unified diff with added and removed lines coloured (and marked for screen readers by their +/-). */
export function DiffView({ diff, label }: { diff: string; label: string }) {
  const lines = diff.replace(/\n$/, "").split("\n");
  let added = 0;
  let removed = 0;
  for (const l of lines) {
    const k = kindOf(l);
    if (k === "add") added++;
    else if (k === "del") removed++;
  }
  return (
    <figure className="diff" aria-label={label}>
      <figcaption>
        {label} <span className="diff-add-count">+{added}</span> <span className="diff-del-count">−{removed}</span>
      </figcaption>
      <pre>
        {lines.map((line, i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: lines of one immutable diff.
          <span key={i} className={`diff-line diff-${kindOf(line)}`}>
            {line}
            {"\n"}
          </span>
        ))}
      </pre>
    </figure>
  );
}
