/** One line of a unified diff and how it reads: added, removed, a hunk header, a file header or context. */
type LineKind = "add" | "del" | "hunk" | "file" | "ctx";

function kindOf(line: string): LineKind {
  if (line.startsWith("+++") || line.startsWith("---") || line.startsWith("diff ") || line.startsWith("index ")) return "file";
  if (line.startsWith("@@")) return "hunk";
  if (line.startsWith("+")) return "add";
  if (line.startsWith("-")) return "del";
  return "ctx";
}

/** Each line's number in the old and the new file, read from the hunk headers (`@@ -7,6 +7,7 @@`). */
function lineNumbers(lines: readonly string[]): Array<{ old?: number; new?: number }> {
  let oldNo = 0;
  let newNo = 0;
  return lines.map((line) => {
    const kind = kindOf(line);
    if (kind === "hunk") {
      const m = /^@@ -(\d+)(?:,\d+)? \+(\d+)/.exec(line);
      if (m) {
        oldNo = Number(m[1]);
        newNo = Number(m[2]);
      }
      return {};
    }
    if (kind === "file") return {};
    if (kind === "add") return { new: newNo++ };
    if (kind === "del") return { old: oldNo++ };
    return { old: oldNo++, new: newNo++ };
  });
}

/**
 * A unified diff with added and removed lines coloured (and marked for screen readers by their +/-),
 * each line with its numbers in the old and new file in a gutter (drawn by CSS, so copying the diff
 * copies the diff).
 */
export function DiffView({ diff, label }: { diff: string; label: string }) {
  const lines = diff.replace(/\n$/, "").split("\n");
  let added = 0;
  let removed = 0;
  for (const l of lines) {
    const k = kindOf(l);
    if (k === "add") added++;
    else if (k === "del") removed++;
  }
  const numbers = lineNumbers(lines);
  return (
    <figure className="diff" aria-label={label}>
      <figcaption>
        {label} <span className="diff-add-count">+{added}</span> <span className="diff-del-count">−{removed}</span>
      </figcaption>
      <pre>
        {lines.map((line, i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: lines of one immutable diff.
          <span key={i} className={`diff-line diff-${kindOf(line)}`} data-old={numbers[i]?.old ?? ""}>
            <span className="diff-text" data-new={numbers[i]?.new ?? ""}>
              {line}
            </span>
            {"\n"}
          </span>
        ))}
      </pre>
    </figure>
  );
}
