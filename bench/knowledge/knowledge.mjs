// Section "knowledge": the knowledge base behind `arbor kb add` and `search_knowledge_base`. 1,000
// documents of about 10 KB each (~10 MB of Markdown and plain text: headings, prose, lists, code) are
// indexed with one `add` (what `arbor kb add <dir>` does), then a fresh instance answers a set of
// lexical queries as the tool asks them (5 passages), each repeated, for p50/p99 (target ≤ 50 ms).
// The first query of a fresh instance loads the index from disk, which a new process pays once; it is
// shown apart from the steady queries.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { sizeOf } from "../lib/env.mjs";
import { mb, note, num, ratio, section, table } from "../lib/format.mjs";
import { summarize } from "../lib/stats.mjs";

const TARGET_MS = 50;
const DOC_BYTES = 10_000;
const LIMIT = 5;

/** A small seeded generator, so every run indexes the same corpus. */
function random(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// Word frequencies follow Zipf's law as English does (the word of rank r is about 1/r as frequent as
// the most common one): 100 real function words on top (about half of all words, as in English), then
// real general words, then made-up words down to rank 20,000. A few words of the document's subject
// are mixed in, so a subject query matches some documents strongly and the rest weakly or not at all.
const FUNCTION_WORDS = (
  "the of and to a in is that it for was on with as be he by at you this are have from or one had " +
  "not but what all were we when your can said there use an each which she do how their if will up " +
  "other about out many then them these so some her would make like him into time has look two more " +
  "write go see number no way could people my than first been call who its now find long down day " +
  "did get come made may part over new also only should must i just"
).split(" ");
const GENERAL = (
  "system service request user data file process team release change value error version support " +
  "access update server client project issue result message record policy review step report network " +
  "configuration environment build deploy test check limit cache queue storage backup account session " +
  "document workflow owner schedule incident response metric alert dashboard setting option default"
).split(" ");
const VOCABULARY = 20_000;
const SYLLABLES = "ba ke ri mo tu la ne si po da fe gi ho ju ka le mi no pu ra se ti vo wa ze".split(" ");
/** The word of a rank: a real word for the first ranks, a made-up one (stable per rank) after them. */
function wordOfRank(r) {
  if (r < FUNCTION_WORDS.length) return FUNCTION_WORDS[r];
  if (r < FUNCTION_WORDS.length + GENERAL.length) return GENERAL[r - FUNCTION_WORDS.length];
  let n = r * 7919;
  let w = "";
  for (let i = 0; i < 2 + (r % 3); i++) {
    w += SYLLABLES[n % SYLLABLES.length];
    n = Math.floor(n / SYLLABLES.length) + i * 13;
  }
  return `${w}${SYLLABLES[r % SYLLABLES.length][0]}`;
}
/** Cumulative Zipf weights, for sampling a rank with one binary search. */
const ZIPF = (() => {
  const cdf = new Float64Array(VOCABULARY);
  let sum = 0;
  for (let r = 0; r < VOCABULARY; r++) cdf[r] = sum += 1 / (r + 1);
  return cdf.map((x) => x / sum);
})();
const TOPICS = [
  "database migration schema index replica transaction rollback postgres vacuum query planner",
  "kubernetes cluster node pod container image registry helm ingress autoscaler namespace",
  "payment invoice refund ledger currency tax billing subscription checkout receipt",
  "onboarding laptop badge payroll holiday benefits manager mentor handbook orientation",
  "security certificate token secret rotation audit firewall vulnerability patch encryption",
  "frontend component browser stylesheet accessibility layout render bundle router animation",
  "logging tracing span exporter collector retention sampling latency throughput percentile",
  "support ticket escalation customer priority sla triage macro satisfaction refund",
  "mobile android ios push notification store review crash build signing device",
  "analytics warehouse pipeline dashboard cohort funnel retention event schema dbt",
  "network dns load balancer proxy tls route gateway bandwidth packet timeout",
  "legal contract privacy consent retention compliance gdpr vendor agreement clause",
].map((t) => t.split(" "));

/** A word: one of the document's subject now and then, otherwise drawn by its Zipf rank. */
function word(rnd, topic) {
  if (rnd() < 0.04) return topic[Math.floor(rnd() ** 1.3 * topic.length)];
  const x = rnd();
  let lo = 0;
  let hi = VOCABULARY - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (ZIPF[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return wordOfRank(lo);
}

function sentence(rnd, topic) {
  const n = 7 + Math.floor(rnd() * 14);
  const words = Array.from({ length: n }, () => word(rnd, topic));
  return `${words[0][0].toUpperCase()}${words.join(" ").slice(1)}.`;
}

/**
 * The one document holding the needle query's rare words: within the first 200, so that `--quick`'s
 * smaller corpus holds it too.
 */
const NEEDLE_DOC = 117;
const NEEDLE_NAME = `doc-${String(NEEDLE_DOC).padStart(4, "0")}.md`;

/** One document of about DOC_BYTES: Markdown with headings, prose, lists and code, or plain text. */
function documentText(d) {
  const rnd = random(d + 1);
  const topic = TOPICS[d % TOPICS.length];
  const markdown = d % 5 !== 0;
  const parts = [markdown ? `# ${topic[d % topic.length]} guide ${d}` : `${topic[0].toUpperCase()} NOTES ${d}`];
  while (parts.join("\n\n").length < DOC_BYTES) {
    const kind = rnd();
    if (markdown && kind < 0.12) parts.push(`## ${sentence(rnd, topic).slice(0, -1)}`);
    else if (markdown && kind < 0.22) {
      parts.push(Array.from({ length: 3 + Math.floor(rnd() * 4) }, () => `- ${sentence(rnd, topic)}`).join("\n"));
    } else if (markdown && kind < 0.27) {
      parts.push(`\`\`\`sh\n${topic[0]}-ctl ${word(rnd, topic)} --${word(rnd, topic)}=${Math.floor(rnd() * 100)}\n\`\`\``);
    } else {
      parts.push(Array.from({ length: 3 + Math.floor(rnd() * 4) }, () => sentence(rnd, topic)).join(" "));
    }
  }
  if (d === NEEDLE_DOC) parts.push("The zircon harbour runbook says to drain the quay before the tide report.");
  return { name: `doc-${String(d).padStart(4, "0")}.${markdown ? "md" : "txt"}`, text: `${parts.join("\n\n")}\n` };
}

/** Queries as a model asks them: a rare needle, topic phrases, and questions full of common words. */
const QUERIES = [
  "zircon harbour",
  "database migration rollback",
  "rotate the certificate secret",
  "kubernetes pod autoscaler",
  "refund an invoice",
  "how do I request holiday",
  "tracing sampling retention",
  "dns timeout on the load balancer",
  "push notification crash",
  "gdpr consent clause",
  "what is the release schedule",
  "incident response escalation",
];

export async function run(ctx) {
  const { core, tmp, quick } = ctx;
  const documents = quick ? 200 : 1000;
  const rounds = quick ? 3 : 10;
  section(
    `Knowledge base: ${documents.toLocaleString("en-US")} documents of ~${DOC_BYTES / 1000} KB, lexical (BM25) search (target: a query ≤ ${TARGET_MS} ms)`,
  );
  const docs = join(tmp, "knowledge-docs");
  mkdirSync(docs, { recursive: true });
  let bytes = 0;
  for (let d = 0; d < documents; d++) {
    const { name, text } = documentText(d);
    writeFileSync(join(docs, name), text);
    bytes += Buffer.byteLength(text);
  }
  const dir = join(tmp, "knowledge-home", "knowledge");

  let t0 = performance.now();
  const report = await new core.KnowledgeBase(dir).add([docs], "/");
  const indexMs = performance.now() - t0;
  if (report.documents !== documents) throw new Error(`indexed ${report.documents} documents of ${documents}`);

  // A fresh instance, as a new process has: its first query reads the index file.
  const kb = new core.KnowledgeBase(dir);
  t0 = performance.now();
  const needle = await kb.query(QUERIES[0], LIMIT);
  const loadMs = performance.now() - t0;
  const top = needle.hits[0]?.source ?? "";
  if (!top.endsWith(NEEDLE_NAME)) throw new Error(`the needle query ranked ${top || "nothing"} first, not ${NEEDLE_NAME}`);

  const times = [];
  let hits = 0;
  for (let r = 0; r < rounds; r++) {
    for (const q of QUERIES) {
      t0 = performance.now();
      const found = await kb.query(q, LIMIT);
      times.push(performance.now() - t0);
      hits += found.hits.length;
    }
  }
  const s = summarize(times);
  const compare = (key, value) => (quick ? "–" : ctx.baseline.compare(`knowledge.${key}`, value, "lower"));
  note(
    `${report.documents.toLocaleString("en-US")} documents, ${mb(bytes)}, ${report.passages.toLocaleString("en-US")} passages; index file ${mb(sizeOf(join(dir, "knowledge.json")))}`,
  );
  table(
    ["<measure", "p50 ms", "p99 ms", "max ms", "vs target", "vs before"],
    [
      ["index every document (kb add)", num(indexMs), "", "", "", compare("index_ms", indexMs)],
      ["first query of a fresh instance (loads the index)", num(loadMs), "", "", "", compare("load_ms", loadMs)],
      [
        `query, ${LIMIT} passages (${QUERIES.length} queries × ${rounds})`,
        num(s.p50),
        num(s.p99),
        num(s.max),
        `${ratio(s.p50 / TARGET_MS)}, p99 ${ratio(s.p99 / TARGET_MS)} (≤ ${TARGET_MS} ms ${s.p99 <= TARGET_MS ? "met" : "MISSED"})`,
        compare("query_p50_ms", s.p50),
      ],
    ],
  );
  note(`${(hits / times.length).toFixed(1)} passages per query on average; the needle query ranked ${NEEDLE_NAME} first`);
}
