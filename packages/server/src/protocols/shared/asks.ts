import type { PermissionReply, RunEvent } from "@arbor/core";
import type { ApprovalScope, QuestionAnswer } from "@arbor/core/session";
import type { RunEventOf } from "@arbor/core/wire";
import { unreachable } from "./unreachable.js";

/**
 * Something a run waits on a person for, as every protocol reads it off the run's events: a
 * permission ask (before a tool call), a plan waiting for approval, or the agent's question (the
 * `question` tool). Each protocol shows it in its own approval shape and reads the person's answer
 * back into an `AskAnswer`; one that cannot show a question says so and names where to answer it.
 */
export type Ask =
  | { kind: "permission"; id: string; event: RunEventOf<"permission_request"> }
  | { kind: "plan"; planId: string; event: RunEventOf<"plan_approval_request"> }
  | { kind: "question"; id: string; event: RunEventOf<"question_request"> };

/** Which ask an answer is for. */
export type AskRef = { kind: "permission"; id: string } | { kind: "plan"; planId: string } | { kind: "question"; id: string };

/** A person's answer to an ask, whichever protocol carried it. */
export type AskAnswer =
  | { kind: "permission"; id: string; reply: PermissionReply; message?: string; scope?: ApprovalScope }
  | { kind: "plan"; planId: string; approved: boolean; reason?: string }
  | { kind: "question"; id: string; answer: QuestionAnswer };

/**
 * How a protocol reads its client's answer to an ask back into the runtime's terms (showing an ask
 * is its run event wire's `ask`). A malformed answer is the client's error, thrown as an ApiError.
 */
export type AnswerOf<Answer> = (answer: Answer) => AskAnswer;

/** The ask a run event announces; undefined for every other event. */
export function askOf(event: RunEvent): Ask | undefined {
  switch (event.type) {
    case "permission_request":
      return { kind: "permission", id: event.id, event };
    case "plan_approval_request":
      return { kind: "plan", planId: event.plan_id, event };
    case "question_request":
      return { kind: "question", id: event.id, event };
    default:
      return undefined;
  }
}

export function refOf(ask: Ask | AskAnswer): AskRef {
  return ask.kind === "plan" ? { kind: "plan", planId: ask.planId } : { kind: ask.kind, id: ask.id };
}

/** The id a person answers an ask by from any door (`arbor approve`, `POST /api/asks/:id`). */
export function askIdOf(ask: Ask | AskRef): string {
  return ask.kind === "plan" ? ask.planId : ask.id;
}

/** A question as one line of text: the question and its choices. */
export function questionText(event: RunEventOf<"question_request">): string {
  const options = event.options?.map((o) => o.label).join(" / ");
  return `${event.question}${options ? ` (${options}${event.multiple ? "; several may be chosen" : ""})` : ""}`;
}

/**
 * What a protocol that cannot carry a question's answer tells its client: the question, and where it
 * is answered instead. The run keeps waiting on it (a durable ask), so any other door may answer.
 */
export function questionElsewhere(event: RunEventOf<"question_request">, protocol: string): string {
  return `The agent asks: ${questionText(event)}. ${protocol} cannot carry the answer to a question: answer it with \`arbor approve ${event.id} --answer <text>\` or POST /api/asks/${event.id}.`;
}

/** One field of an MCP server's form, as a person reads it. */
export interface ElicitationField {
  /** The key its value goes under in the answer's `content`. */
  name: string;
  title: string;
  type: string | undefined;
  required: boolean;
  /** A choice's values. */
  choices?: string[];
  description?: string;
}

const stringsOf = (value: unknown): string[] | undefined =>
  Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : undefined;

/** The fields a form elicitation asks for, in the order of its schema; none for a URL or login one. */
export function elicitationFields(event: RunEventOf<"elicitation_request">): ElicitationField[] {
  const schema = event.requested_schema ?? {};
  const properties = (typeof schema.properties === "object" && schema.properties !== null ? schema.properties : {}) as Record<
    string,
    Record<string, unknown>
  >;
  const required = new Set(stringsOf(schema.required) ?? []);
  return Object.entries(properties).map(([name, field]) => {
    // A choice is `enum`, or `oneOf`/`anyOf` of `const`s (titled choices), or an array of either.
    const items = (field.items ?? {}) as Record<string, unknown>;
    const listed = (field.oneOf ?? field.anyOf ?? items.oneOf ?? items.anyOf) as { const?: unknown }[] | undefined;
    const choices = stringsOf(field.enum ?? items.enum) ?? stringsOf(listed?.map((c) => c.const));
    return {
      name,
      title: typeof field.title === "string" ? field.title : name,
      type: typeof field.type === "string" ? field.type : undefined,
      required: required.has(name),
      ...(choices && choices.length > 0 ? { choices } : {}),
      ...(typeof field.description === "string" ? { description: field.description } : {}),
    };
  });
}

/** A form's fields as one line: `Title (title, required); Priority (priority: low / normal / high)`. */
function fieldsText(fields: readonly ElicitationField[]): string {
  return fields
    .map((f) => {
      const how = [f.choices ? `${f.name}: ${f.choices.join(" / ")}` : f.name, ...(f.required ? ["required"] : [])];
      return `${f.title} (${how.join(", ")})`;
    })
    .join("; ");
}

/**
 * What a protocol that cannot carry an MCP server's elicitation tells its client: the server's
 * message, the form's fields or the page to open, and where it is answered instead (the inspector's
 * asks, `arbor approve`, `POST /api/asks/:id`). The tool call keeps waiting on it (a durable ask).
 */
export function elicitationElsewhere(event: RunEventOf<"elicitation_request">, protocol: string): string {
  const { id, server, message } = event;
  const decline = `decline with \`arbor approve ${id} --deny\` or POST /api/asks/${id} {"allow": false}`;
  const cannot = `${protocol} cannot carry the answer to an MCP server's request: answer it in the inspector's asks, or`;
  switch (event.mode) {
    case "form": {
      const fields = fieldsText(elicitationFields(event));
      return (
        `MCP server ${server} asks: ${message}${fields === "" ? "" : ` Fields: ${fields}.`} ${cannot} fill it in with ` +
        `\`arbor approve ${id} --content '<the fields as JSON>'\` or POST /api/asks/${id} {"allow": true, "content": {…}}; ${decline}. The tool call waits.`
      );
    }
    case "url":
      return (
        `MCP server ${server} asks you to open ${event.url ?? "a page"}: ${message} ${cannot} once you have opened it, ` +
        `accept with \`arbor approve ${id}\` or POST /api/asks/${id} {"allow": true}; ${decline}. The tool call waits.`
      );
    case "login":
      return (
        `MCP server ${server} needs you to log in at ${event.url ?? "its login page"}: ${message} Logging in there answers it; ` +
        `${protocol} cannot carry a decline: ${decline}. The tool call waits.`
      );
    default:
      return unreachable("elicitation mode", event.mode);
  }
}
