/** Small pure string helpers shared by the renderers. */

/**
 * One line of displayable text: control characters (including terminal escape sequences, which
 * stored content must never be able to send to a terminal) become spaces and runs of whitespace
 * collapse.
 */
export function oneLine(text: string): string {
  return text
    .replace(/\p{Cc}+/gu, " ")
    .replace(/\s+/g, " ")
    .trim();
}

/** The first non-blank line of `text`, made displayable. */
export function firstLine(text: string): string {
  for (const line of text.split("\n")) {
    const l = oneLine(line);
    if (l !== "") return l;
  }
  return "";
}

/** Cuts `text` to at most `max` characters, ending with `…` when cut. */
export function truncate(text: string, max: number): string {
  if (max <= 0) return "";
  if (text.length <= max) return text;
  if (max === 1) return "…";
  return `${text.slice(0, max - 1)}…`;
}

/** Like `truncate`, but cut at the last word boundary that fits (mid-word only for a single long word). */
export function truncateWords(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max - 1);
  const space = cut.lastIndexOf(" ");
  return `${(space > max / 2 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

/** The first `length` characters of an id: enough to tell entries of one session apart. */
export function shortId(id: string, length = 8): string {
  return id.length <= length ? id : id.slice(0, length);
}

/**
 * Short ids that each name one entry among `ids`: at least `length` characters, longer where ids
 * share a longer start (imported ids such as OpenCode's `msg_0cb97c…` share a time prefix, and a
 * derived `…-results` id starts with its message's), the whole id where it starts another. Each
 * shown id is one `resolveEntryId` accepts.
 */
export function uniqueShortIds(ids: Iterable<string>, length = 8): (id: string) => string {
  const sorted = [...new Set(ids)].sort();
  const common = (a: string | undefined, b: string | undefined): number => {
    if (a === undefined || b === undefined) return 0;
    let n = 0;
    while (n < a.length && n < b.length && a[n] === b[n]) n++;
    return n;
  };
  const lengths = new Map<string, number>();
  // Sorted, an id shares its longest start with a neighbour.
  sorted.forEach((id, i) => {
    const shared = Math.max(common(id, sorted[i - 1]), common(id, sorted[i + 1]));
    lengths.set(id, Math.max(length, shared + 1));
  });
  return (id) => shortId(id, lengths.get(id) ?? length);
}

/** `2026-11-21T06:14:03.123Z` → `2026-11-21 06:14:03` (UTC, as stored). */
export function formatTime(iso: string): string {
  return /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}/.test(iso) ? `${iso.slice(0, 10)} ${iso.slice(11, 19)}` : iso;
}

/** `1 entry`, `3 entries`. */
export function plural(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

/**
 * Left-aligned columns separated by two spaces; the last column is not padded. Widths are in
 * UTF-16 code units, which is right for the ids, times and numbers that fill all but the last.
 */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const last = header.length - 1;
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => (i === last ? c : c.padEnd(widths[i] ?? 0)))
      .join("  ")
      .trimEnd();
  return [line(header), ...rows.map(line)];
}
