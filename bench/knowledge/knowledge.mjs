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

// Function words are most of real prose; the topic words give each document its subject, so queries
// match some documents strongly and many weakly, as in a real handbook or wiki.
const COMMON = (
  "the of and to a in is it that for on with as be this are by or from at an not which you can when " +
  "all will if each one more has have its but was they so what we use also than only into should must"
).split(" ");
const GENERAL = (
  "system service request user data file process team release change time value error version support " +
  "access update server client project issue result message record policy review step report network " +
  "configuration environment build deploy test check limit cache queue storage backup account session " +
  "document workflow owner schedule incident response metric alert dashboard setting option default"
).split(" ");
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

/** A word: mostly function words, then general ones, then the document's topic. */
function word(rnd, topic) {
  const r = rnd();
  if (r < 0.45) return COMMON[Math.floor(rnd() ** 2 * COMMON.length)];
  if (r < 0.8) return GENERAL[Math.floor(rnd() ** 1.5 * GENERAL.length)];
  return topic[Math.floor(rnd() ** 1.3 * topic.length)];
}

function sentence(rnd, topic) {
  const n = 7 + Math.floor(rnd() * 14);
  const words = Array.from({ length: n }, () => word(rnd, topic));
  return `${words[0][0].toUpperCase()}${words.join(" ").slice(1)}.`;
}

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
  if (d === 617) parts.push("The zircon harbour runbook says to drain the quay before the tide report.");
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
  if (!top.endsWith("doc-0617.md")) throw new Error(`the needle query ranked ${top || "nothing"} first, not doc-0617.md`);

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
  note(`${(hits / times.length).toFixed(1)} passages per query on average; the needle query ranked doc-0617.md first`);
}
