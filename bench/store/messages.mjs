// Deterministic, realistic-looking message text: English-ish words, code identifiers and numbers.

const WORDS = (
  "the a to of and in that is for it with as on be this file function return value test error should " +
  "we can use when if not from by at or will have are was config update session entry store append " +
  "context path model token request response branch leaf root parent child snapshot json line write " +
  "read open close check build run fix change add remove import export const let await async node"
).split(" ");
const IDENTS = ["appendEntry", "getSnapshot", "src/store/file.ts", "buildContext()", "leafEntryId", "parentId", "npm test"];

function rng(seed) {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 2 ** 32;
  };
}

/** Text of about `bytes` bytes (ASCII), different for every seed. */
export function text(bytes, seed) {
  const r = rng(seed * 2654435761 + 1);
  let out = "";
  while (out.length < bytes) {
    const x = r();
    const w =
      x < 0.05
        ? IDENTS[Math.floor(r() * IDENTS.length)]
        : x < 0.08
          ? String(Math.floor(r() * 10000))
          : WORDS[Math.floor(r() * WORDS.length)];
    out += out.length === 0 ? w[0].toUpperCase() + w.slice(1) : r() < 0.08 ? `. ${w}` : ` ${w}`;
  }
  return `${out.slice(0, bytes - 1)}.`;
}

/** `n` distinct texts of about `bytes` bytes, to cycle through. */
export function textPool(n, bytes, seed = 1) {
  return Array.from({ length: n }, (_, i) => text(bytes, seed * 100003 + i));
}

export const role = (i) => (i % 2 === 0 ? "user" : "assistant");

/** A message entry input for appendEntries. */
export function messageEntry(i, body) {
  return { type: "message", message: { role: role(i), content: [{ type: "text", text: body }] } };
}
