import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Script } from "@arbor/testkit";
import { startServer } from "./server.js";

/** What the conformance suite asks of one protocol, through that protocol's own client. */
export interface ProtocolClient {
  /** Sends `prompt` as the protocol's input; the answer's text as the client received it. */
  answer(prompt: string): Promise<string>;
  /** Sends `prompt` to a run that asks permission; shows the ask as the client got it, allows it, and returns the answer's text. */
  approve(prompt: string): Promise<{ asked: string; text: string }>;
  /**
   * Sends `prompt` to a run whose agent asks a question (which database, PostgreSQL or SQLite); shows
   * the question as the client got it, answers "SQLite" in the protocol's own shape, and returns the
   * answer's text. Absent where the protocol has no shape for an answer (it says where to answer instead).
   */
  question?(prompt: string): Promise<{ asked: string; text: string }>;
  /** Sends input the protocol refuses; the error as the client reports it. */
  refuse(): Promise<string>;
  /** How many sessions the server's store holds. */
  sessions(): Promise<number>;
}

/** A protocol's client, opened against a fresh server whose scripted model plays `script` in a workspace holding `files`. */
export interface ClientDriver {
  /** The client library this driver uses. */
  client: string;
  /** Its clients implement `question`: the protocol carries a question's answer. */
  answersQuestions?: true;
  open(script: Script, files: Record<string, string>): Promise<ProtocolClient>;
}

export const writeFiles = (cwd: string, files: Record<string, string>) => {
  for (const [name, text] of Object.entries(files)) writeFileSync(join(cwd, name), text);
};

/** A fresh server playing `script` in a workspace holding `files`, and a count of its store's sessions. */
export async function serverWith(script: Script, files: Record<string, string>) {
  const server = await startServer({ script });
  writeFiles(server.cwd, files);
  return { server, sessions: async () => (await server.store.listSessions({})).sessions.length };
}
