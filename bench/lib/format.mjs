// Plain aligned text tables and number formatting for the benchmark output.

/** Prints a table. `columns` are header strings; a leading "<" left-aligns the column (default: right). */
export function table(columns, rows, indent = "  ") {
  const heads = columns.map((c) => (c.startsWith("<") ? c.slice(1) : c));
  const left = columns.map((c) => c.startsWith("<"));
  const cells = rows.map((r) => r.map((v) => (v === undefined || v === null ? "–" : String(v))));
  const widths = heads.map((h, i) => Math.max(h.length, ...cells.map((r) => (r[i] ?? "").length)));
  const line = (r) =>
    indent +
    r
      .map((v, i) => (left[i] ? v.padEnd(widths[i]) : v.padStart(widths[i])))
      .join("  ")
      .trimEnd();
  console.log(line(heads));
  console.log(line(widths.map((w) => "-".repeat(w))));
  for (const r of cells) console.log(line(r));
}

export function section(title) {
  console.log(`\n${title}\n${"=".repeat(title.length)}`);
}

export function note(text) {
  console.log(`  ${text}`);
}

/** A number with about 3 significant digits. */
export function num(x) {
  if (x === undefined || x === null || Number.isNaN(x)) return "–";
  const a = Math.abs(x);
  if (a >= 100) return Math.round(x).toLocaleString("en-US");
  if (a >= 10) return x.toFixed(1);
  if (a >= 1) return x.toFixed(2);
  return x.toFixed(3);
}

export function ratio(x) {
  if (x === undefined || x === null || !Number.isFinite(x)) return "–";
  return `${x !== 0 && Math.abs(x) < 0.1 ? Number(x.toPrecision(2)) : num(x)}×`;
}

export function mb(bytes) {
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

export function count(n) {
  return n >= 1000 && n % 1000 === 0 ? `${n / 1000}k` : String(n);
}

/** One-line reason from an error, for "skipped: …" notes. */
export function reason(err) {
  const e = /** @type {{ code?: string, message?: string }} */ (err ?? {});
  const msg = (e.message ?? String(err)).split("\n")[0];
  return e.code && !msg.includes(e.code) ? `${e.code}: ${msg}` : msg;
}
