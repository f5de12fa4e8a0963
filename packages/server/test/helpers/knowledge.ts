import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { KnowledgeBase } from "@arbor/core/tools";

/**
 * Writes a document into a test server's workspace and adds it to the knowledge base the server's
 * search_knowledge_base reads (in its $ARBOR_HOME, the `home` folder beside the workspace); gives
 * the document's path, which its passages name as their source.
 */
export async function addKnowledge(server: { cwd: string }, name: string, content: string): Promise<string> {
  const doc = join(server.cwd, name);
  writeFileSync(doc, content);
  await new KnowledgeBase(join(dirname(server.cwd), "home", "knowledge")).add([doc], server.cwd);
  return doc;
}
