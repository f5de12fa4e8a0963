import { open } from "node:fs/promises";
import { extname } from "node:path";

/** Extensions that are binary whatever their first bytes look like (archives can start with text). */
const BINARY_EXTENSIONS = new Set([
  ".zip",
  ".tar",
  ".gz",
  ".tgz",
  ".bz2",
  ".xz",
  ".7z",
  ".rar",
  ".jar",
  ".war",
  ".class",
  ".exe",
  ".dll",
  ".so",
  ".dylib",
  ".o",
  ".a",
  ".lib",
  ".wasm",
  ".pyc",
  ".pyo",
  ".bin",
  ".dat",
  ".db",
  ".sqlite",
  ".png",
  ".jpg",
  ".jpeg",
  ".gif",
  ".bmp",
  ".ico",
  ".webp",
  ".tiff",
  ".pdf",
  ".mp3",
  ".mp4",
  ".mov",
  ".avi",
  ".wav",
  ".flac",
  ".ogg",
  ".woff",
  ".woff2",
  ".ttf",
  ".otf",
  ".eot",
  ".psd",
  ".doc",
  ".docx",
  ".xls",
  ".xlsx",
  ".ppt",
  ".pptx",
]);

/**
 * Whether a sample of a file's first bytes looks binary: any NUL byte, or more than 30% control
 * characters other than tab, newline, carriage return, form feed and escape.
 */
export function looksBinary(sample: Uint8Array): boolean {
  if (sample.length === 0) return false;
  let control = 0;
  for (const byte of sample) {
    if (byte === 0) return true;
    if (byte < 32 && byte !== 9 && byte !== 10 && byte !== 13 && byte !== 12 && byte !== 27) control++;
  }
  return control / sample.length > 0.3;
}

/**
 * A file the caller measured at `size` bytes, read whole with one open and one read, and whether it
 * looks binary as isBinaryFile decides (its extension, then its first 8 KB); undefined when it has
 * grown since (the caller then reads it as a stream). A read of a small file used to open it twice,
 * once for the check and once to read it: eight file-system calls on the thread pool instead of three.
 */
export async function readSmallFile(path: string, size: number): Promise<{ bytes: Buffer; binary: boolean } | undefined> {
  if (BINARY_EXTENSIONS.has(extname(path).toLowerCase())) return { bytes: Buffer.alloc(0), binary: true };
  const handle = await open(path, "r");
  try {
    // One byte more than measured: a regular file reads short only at its end, so a full read means it grew.
    const buffer = Buffer.allocUnsafe(size + 1);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    if (bytesRead > size) return undefined;
    const bytes = buffer.subarray(0, bytesRead);
    return { bytes, binary: looksBinary(bytes.subarray(0, 8192)) };
  } finally {
    await handle.close();
  }
}

/** Checks the extension, then the first 8 KB. */
export async function isBinaryFile(path: string): Promise<boolean> {
  if (BINARY_EXTENSIONS.has(extname(path).toLowerCase())) return true;
  const handle = await open(path, "r");
  try {
    const buffer = Buffer.alloc(8192);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    return looksBinary(buffer.subarray(0, bytesRead));
  } finally {
    await handle.close();
  }
}
