import { extname } from "node:path";
import { htmlToText } from "./html-to-text.js";

/** A piece of a document the index ranks on its own, with the lines it came from. */
export interface Passage {
  text: string;
  startLine: number;
  endLine: number;
  /** The page of a PDF (its lines are then counted within the page). */
  page?: number;
}

/** The document formats read as text; any other file is skipped with a note. */
export const KNOWLEDGE_EXTENSIONS = new Set([".md", ".markdown", ".txt", ".text", ".html", ".htm", ".rst", ".pdf"]);

/** A document larger than this is left out: its passages would take minutes and gigabytes to index. */
export const MAX_DOCUMENT_BYTES = 10 * 1024 * 1024;

/**
 * Why `content` is not text, or undefined when it is: a NUL byte in its first 8 KiB, or more than
 * one in ten of those bytes neither printable UTF-8 nor white space (random bytes named `.md`, an
 * image renamed). PDFs are binary by nature and read by their own parser, so they are not checked.
 */
export function binaryReason(path: string, content: Buffer): string | undefined {
  if (extname(path).toLowerCase() === ".pdf") return undefined;
  const head = content.subarray(0, 8192);
  if (head.includes(0)) return "binary content (a NUL byte), not text";
  const text = head.toString("utf8");
  let odd = 0;
  for (const ch of text) {
    const code = ch.codePointAt(0)!;
    if (code === 0xfffd || (code < 32 && code !== 9 && code !== 10 && code !== 13 && code !== 12)) odd++;
  }
  return odd * 10 > text.length ? "binary content (not UTF-8 text)" : undefined;
}

/** A passage grows by paragraphs up to about this many characters, so a hit is a readable excerpt. */
const PASSAGE_CHARS = 1200;

/**
 * A file's passages: a PDF's text page by page (through unpdf, PDF.js), HTML reduced to its text,
 * the rest read as it is. Throws when a PDF cannot be read.
 */
export async function documentPassages(path: string, content: Buffer): Promise<Passage[]> {
  const ext = extname(path).toLowerCase();
  if (ext === ".pdf") {
    const { extractText, getDocumentProxy } = await import("unpdf");
    const pdf = await getDocumentProxy(new Uint8Array(content));
    const { text } = await extractText(pdf, { mergePages: false });
    return text.flatMap((page, i) => passagesOf(page).map((p) => ({ ...p, page: i + 1 })));
  }
  const text = content.toString("utf8");
  return passagesOf(ext === ".html" || ext === ".htm" ? htmlToText(text) : text);
}

/** Splits text into passages of whole paragraphs (a long paragraph is cut by lines), numbering lines from 1; a passage's lines end at its last non-blank one. */
export function passagesOf(text: string): Passage[] {
  const lines = text.split("\n");
  const out: Passage[] = [];
  let current: string[] = [];
  let start = 1;
  let size = 0;
  let last = 0;
  const flush = () => {
    const joined = current.join("\n").trim();
    if (joined !== "") out.push({ text: joined, startLine: start, endLine: last });
    current = [];
    size = 0;
  };
  lines.forEach((line, i) => {
    const blank = line.trim() === "";
    if (current.length === 0) {
      if (blank) return;
      start = i + 1;
    }
    current.push(line);
    size += line.length + 1;
    if (!blank) last = i + 1;
    if ((blank && size >= PASSAGE_CHARS / 2) || size >= PASSAGE_CHARS) flush();
  });
  flush();
  return out;
}
