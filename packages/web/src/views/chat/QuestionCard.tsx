import { useState } from "react";
import { useAction } from "../../lib/use-action.js";
import { ErrorAlert } from "../common/ErrorAlert.js";
import type { QuestionAsk } from "./run-state.js";

interface Props {
  ask: QuestionAsk;
  onAnswer: (answer: { answers: string[] } | { dismissed: true }) => Promise<void>;
}

/**
 * The agent's question (the `question` tool), answered in place: pick an option (several when the
 * question allows), or type an answer of your own, or dismiss it. The run waits until one is sent.
 */
export function QuestionCard({ ask, onAnswer }: Props) {
  const [chosen, setChosen] = useState<string[]>([]);
  const [own, setOwn] = useState("");
  const { busy, error, run } = useAction();
  const send = (answer: { answers: string[] } | { dismissed: true }) => run(() => onAnswer(answer));
  const toggle = (label: string) =>
    setChosen((was) => (ask.multiple ? (was.includes(label) ? was.filter((l) => l !== label) : [...was, label]) : [label]));
  const answers = own.trim() !== "" ? [...chosen, own.trim()] : chosen;
  const takesOwnWords = ask.custom || ask.options === undefined;
  return (
    <section className="permission-ask question-ask" aria-label={`Question: ${ask.question}`} data-question-id={ask.id}>
      <p>
        <strong>{ask.header ?? "The agent asks"}</strong> — {ask.question}
      </p>
      {ask.answer ? (
        <p className="muted" data-testid="question-answer">
          {"answers" in ask.answer ? `Answered: ${ask.answer.answers.join(", ")}` : "Dismissed"}
        </p>
      ) : (
        <>
          {ask.options && (
            <fieldset className="question-options">
              <legend>{ask.multiple ? "Choose one or more" : "Choose one"}</legend>
              {ask.options.map((option) => (
                <label key={option.label}>
                  <input
                    type={ask.multiple ? "checkbox" : "radio"}
                    name={`question-${ask.id}`}
                    checked={chosen.includes(option.label)}
                    disabled={busy}
                    onChange={() => toggle(option.label)}
                  />{" "}
                  {option.label}
                  {option.description && <span className="muted"> — {option.description}</span>}
                </label>
              ))}
            </fieldset>
          )}
          {takesOwnWords && (
            <label className="question-own">
              {ask.options ? "Or in your own words" : "Your answer"}
              <input type="text" value={own} disabled={busy} onChange={(e) => setOwn(e.target.value)} />
            </label>
          )}
          <div className="button-row">
            <button
              type="button"
              className="primary"
              disabled={busy || answers.length === 0}
              onClick={() => void send({ answers })}
            >
              Answer
            </button>
            <button type="button" className="danger" disabled={busy} onClick={() => void send({ dismissed: true })}>
              Dismiss
            </button>
          </div>
        </>
      )}
      <ErrorAlert error={error} />
    </section>
  );
}
