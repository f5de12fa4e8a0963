import { useChat } from "@ai-sdk/react";
import { DefaultChatTransport, lastAssistantMessageIsCompleteWithApprovalResponses } from "ai";
import { useState } from "react";
import { createRoot } from "react-dom/client";

// The chat id is Arbor's session id: keep it in the URL so a reload resumes the same session and run.
const params = new URLSearchParams(location.search);
const chatId = params.get("chat") ?? `chat-${crypto.randomUUID()}`;
history.replaceState(null, "", `?chat=${chatId}`);
const token = import.meta.env.VITE_ARBOR_TOKEN as string | undefined;

function App() {
  const [input, setInput] = useState("");
  const { messages, sendMessage, status, addToolApprovalResponse } = useChat({
    id: chatId,
    resume: true,
    transport: new DefaultChatTransport({
      api: "/api/ui/chat",
      ...(token ? { headers: { Authorization: `Bearer ${token}` } } : {}),
    }),
    sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
  });
  return (
    <main style={{ fontFamily: "sans-serif", maxWidth: 720, margin: "2rem auto" }}>
      {messages.map((m) => (
        <div key={m.id}>
          <b>{m.role}</b>
          {m.parts.map((part, i) => {
            const key = `${m.id}-${i}`;
            if (part.type === "text") return <p key={key}>{part.text}</p>;
            if (part.type === "reasoning") return <p key={key} style={{ color: "gray" }}>{part.text}</p>;
            if (part.type !== "dynamic-tool") return null;
            return (
              <div key={key}>
                <code>
                  {part.toolName} {JSON.stringify(part.input)} ({part.state})
                </code>
                {part.state === "approval-requested" && (
                  <>
                    <button type="button" onClick={() => addToolApprovalResponse({ id: part.approval.id, approved: true })}>
                      Allow
                    </button>
                    <button type="button" onClick={() => addToolApprovalResponse({ id: part.approval.id, approved: false })}>
                      Deny
                    </button>
                  </>
                )}
              </div>
            );
          })}
        </div>
      ))}
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void sendMessage({ text: input });
          setInput("");
        }}
      >
        <input value={input} onChange={(e) => setInput(e.target.value)} disabled={status !== "ready"} />
        <span> {status}</span>
      </form>
    </main>
  );
}

createRoot(document.getElementById("root") as HTMLElement).render(<App />);
