import { writeFileSync } from "node:fs";
import { join } from "node:path";

const WORDS = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda omicron sigma tau upsilon".split(" ");

/**
 * Writes 1,000 documents of about 10 kB of made-up words (10 MB) into `dir`; `doc-500.md` alone
 * mentions a zircon harbour. With `common`, every other word is one of them, as function words are
 * in prose (found in every passage).
 */
export function writeNeedleCorpus(dir: string, common?: readonly string[]): void {
  for (let d = 0; d < 1000; d++) {
    const lines: string[] = [];
    for (let p = 0; lines.join("\n").length < 10_000; p++) {
      const word = (i: number) => `${WORDS[(d * 7 + p * 3 + i) % WORDS.length]}${(d + i * p) % 97}`;
      lines.push(
        Array.from({ length: 14 }, (_, i) => (common && i % 2 === 0 ? common[(d + p + i) % common.length] : word(i))).join(" "),
        "",
      );
    }
    if (d === 500) lines.push("The needle document mentions a zircon harbour.");
    writeFileSync(join(dir, `doc-${d}.md`), lines.join("\n"));
  }
}

/** Runs `warmUp` once, then times `query` five times: the median in ms, and the top source the last run found. */
export async function medianQuery(warmUp: () => Promise<unknown>, query: () => Promise<string>) {
  await warmUp();
  const times: number[] = [];
  let top = "";
  for (let i = 0; i < 5; i++) {
    const t = performance.now();
    top = await query();
    times.push(performance.now() - t);
  }
  return { median: times.sort((a, b) => a - b)[2] as number, top };
}
