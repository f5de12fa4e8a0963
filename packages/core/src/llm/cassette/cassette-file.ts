import { randomBytes } from "node:crypto";
import { readFile, rename, rm, writeFile } from "node:fs/promises";
import { z } from "zod";
import { ArborError } from "../../errors.js";
import { describeIssues } from "../../model/validate.js";
import { RecordingSchema } from "../cache/recording.js";
import { ModelInfoSchema } from "../catalog.js";

export const CASSETTE_FORMAT = "arbor-cassette";
export const CASSETTE_VERSION = 1;

/**
 * A whole run's model calls, in call order (the cache's recording format, one recording a call,
 * keyed by `replayKey`). `run` says what was run, for tools that replay it (`arbor demo`): the
 * prompt, the model name and its catalog entry (limits and prices, so a replay costs the same).
 */
export const CassetteSchema = z.strictObject({
  format: z.literal(CASSETTE_FORMAT),
  version: z.literal(CASSETTE_VERSION),
  recordedAt: z.iso.datetime({ offset: true }),
  run: z
    .strictObject({
      prompt: z.string().optional(),
      model: z.string().min(1).optional(),
      info: ModelInfoSchema.optional(),
    })
    .optional(),
  interactions: z.array(RecordingSchema),
});

export type Cassette = z.infer<typeof CassetteSchema>;

/** Checks a parsed cassette; `source` names it in the error. */
export function parseCassette(data: unknown, source: string): Cassette {
  const parsed = CassetteSchema.safeParse(data);
  if (!parsed.success) {
    throw new ArborError("invalid_cassette", `${source} is not an Arbor cassette: ${describeIssues(parsed.error)}`, {
      file: source,
    });
  }
  return parsed.data;
}

/** Reads and checks a cassette file. */
export async function loadCassette(path: string): Promise<Cassette> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new ArborError(
      "invalid_cassette",
      code === "ENOENT"
        ? `No cassette at ${path}: record one with arbor run --record ${path}.`
        : `Cannot read ${path}: ${(err as Error).message}`,
      { file: path },
    );
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw new ArborError("invalid_cassette", `${path} is not JSON: ${(err as Error).message}`, { file: path });
  }
  return parseCassette(data, path);
}

/** Cassette JSON as written: one interaction's parts per line, so a diff of a re-recording reads part by part. */
export function formatCassette(cassette: Cassette): string {
  const { interactions, ...head } = cassette;
  const body = interactions.map((interaction) => {
    const { parts, ...rest } = interaction;
    const fields = Object.entries(rest).map(([k, v]) => `      ${JSON.stringify(k)}: ${JSON.stringify(v)},`);
    const lines = parts.map((p) => `        ${JSON.stringify(p)}`).join(",\n");
    return `    {\n${fields.join("\n")}\n      "parts": [\n${lines}\n      ]\n    }`;
  });
  const headLines = Object.entries(head).map(([k, v]) => `  ${JSON.stringify(k)}: ${JSON.stringify(v)},`);
  return `{\n${headLines.join("\n")}\n  "interactions": [\n${body.join(",\n")}\n  ]\n}\n`;
}

/** Writes the cassette whole, atomically: a reader (or a crash) sees the previous file or this one. */
export async function saveCassette(path: string, cassette: Cassette): Promise<void> {
  const tmp = `${path}.tmp-${randomBytes(6).toString("hex")}`;
  try {
    await writeFile(tmp, formatCassette(cassette), "utf8");
    await rename(tmp, path);
  } catch (err) {
    await rm(tmp, { force: true });
    throw new ArborError("io_error", `Cannot write the cassette ${path}: ${(err as Error).message}`, { file: path });
  }
}
