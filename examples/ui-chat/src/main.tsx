import { useChat } from "@ai-sdk/react";
import { DefaultChatTransport, lastAssistantMessageIsCompleteWithApprovalResponses, type UIMessage } from "ai";
import { useState } from "react";
import { createRoot } from "react-dom/client";

// The chat id is Arbor's session id: keep it in the URL so a reload resumes the same session and run.
const params = new URLSearchParams(location.search);
const chatId = params.get("chat") ?? `chat-${crypto.randomUUID()}`;
history.replaceState(null, "", `?chat=${chatId}`);
const token = import.meta.env.VITE_ARBOR_TOKEN as string | undefined;

/** One line for each of Arbor's own events (`data-*` parts); the rest of their data is in `part.data`. */
function describeData(part: { type: string; data: unknown }): string {
  const data = part.data as Record<string, unknown>;
  switch (part.type) {
    case "data-goal-added":
      return `goal ${(data.goal as { id: string; description?: string }).id} added`;
    case "data-sub-agent-started":
      return `sub-agent ${data.agent_type}: ${data.task ?? ""}`;
    case "data-sub-agent-completed":
      return `sub-agent done: ${data.status}`;
    case "data-compaction":
      return `compaction ${data.status}`;
    case "data-branch":
      return `new branch from ${data.from_entry_id}`;
    default:
      return "";
  }
}

function Part({ part, onApprove }: { part: UIMessage["parts"][number]; onApprove(id: string, approved: boolean): void }) {
  if (part.type === "text") return <p>{part.text}</p>;
  if (part.type === "reasoning") return <p style={{ color: "gray" }}>{part.text}</p>;
  if (part.type.startsWith("data-")) {
    const line = describeData(part as { type: string; data: unknown });
    return line ? <small style={{ display: "block", color: "teal" }}>{line}</small> : null;
  }
  if (part.type !== "dynamic-tool") return null;
  return (
    <div aria-label={`Tool ${part.toolName}`}>
      <code>
        {part.toolName} {JSON.stringify(part.input)} ({part.state})
      </code>
      {part.state === "approval-requested" && (
        <>
          <button type="button" onClick={() => onApprove(part.approval.id, true)}>
            Allow
          </button>
          <button type="button" onClick={() => onApprove(part.approval.id, false)}>
            Deny
          </button>
        </>
      )}
    </div>
  );
}

function App() {
  const [input, setInput] = useState("");
  const { messages, sendMessage, status, addToolApprovalResponse, regenerate } = useChat({
    id: chatId,
    resume: true,
    transport: new DefaultChatTransport({
      api: "/api/ui/chat",
      ...(token ? { headers: { Authorization: `Bearer ${token}` } } : {}),
    }),
    sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
  });
  const approve = (id: string, approved: boolean) => addToolApprovalResponse({ id, approved });
  return (
    <main style={{ fontFamily: "sans-serif", maxWidth: 720, margin: "2rem auto" }}>
      {messages.map((m) => (
        <div key={m.id}>
          <b>{m.role}</b>
          {m.parts.map((part, i) => (
            <Part key={`${m.id}-${i}`} part={part} onApprove={approve} />
          ))}
        </div>
      ))}
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void sendMessage({ text: input });
          setInput("");
        }}
      >
        <input aria-label="Message" value={input} onChange={(e) => setInput(e.target.value)} disabled={status !== "ready"} />
        <output aria-label="Status"> {status}</output>
        {messages.at(-1)?.role === "assistant" && status === "ready" && (
          <button type="button" onClick={() => void regenerate()}>
            Regenerate
          </button>
        )}
      </form>
    </main>
  );
}

createRoot(document.getElementById("root") as HTMLElement).render(<App />);
