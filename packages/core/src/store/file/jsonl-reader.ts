import { closeSync, openSync, readSync } from "node:fs";

export interface JsonlLine {
  /** 1-based line number. */
  lineNo: number;
  /** Byte offset of the line's first byte. */
  start: number;
  /** Byte offset of the line's newline. */
  end: number;
  text: string;
}

export interface JsonlScan {
  /** Bytes up to and including the last newline. */
  completeBytes: number;
  /** Bytes after the last newline: a write torn by a crash. */
  tornBytes: number;
}

const CHUNK = 4 * 1024 * 1024;

/**
 * Reads a JSONL file line by line in fixed chunks, so peak memory is the parsed result plus one
 * chunk rather than the whole file as a buffer and again as a string. `from` skips a known prefix.
 */
export function scanJsonl(path: string, onLine: (line: JsonlLine) => void, from = 0): JsonlScan {
  const fd = openSync(path, "r");
  try {
    let buf = Buffer.allocUnsafe(CHUNK);
    let filled = 0; // bytes of buf holding data
    let bufStart = from; // file offset of buf[0]
    let filePos = from;
    let lineNo = 0;
    for (;;) {
      if (filled === buf.length) {
        const bigger = Buffer.allocUnsafe(buf.length * 2);
        buf.copy(bigger, 0, 0, filled);
        buf = bigger;
      }
      const n = readSync(fd, buf, filled, buf.length - filled, filePos);
      filePos += n;
      const end = filled + n;
      let pos = 0;
      for (let nl = buf.indexOf(10, filled); nl !== -1 && nl < end; nl = buf.indexOf(10, pos)) {
        lineNo++;
        if (nl > pos) onLine({ lineNo, start: bufStart + pos, end: bufStart + nl, text: buf.toString("utf8", pos, nl) });
        pos = nl + 1;
      }
      if (n === 0) return { completeBytes: bufStart + pos, tornBytes: end - pos };
      buf.copy(buf, 0, pos, end);
      filled = end - pos;
      bufStart += pos;
    }
  } finally {
    closeSync(fd);
  }
}
