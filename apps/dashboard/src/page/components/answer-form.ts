/**
 * The form that answers the waitpoint a run waits on: its question, its
 * answer schema, a JSON answer and who answers. The answer goes through the
 * guarded API like a cancel (session token, CSRF header, same origin); a
 * refused answer shows why (the schema's issues) and the run keeps waiting.
 */
import { ApiError, answerWaitpoint, type RunView } from "../api.js";
import { h } from "../dom.js";
import { formatDateTime } from "../format.js";
import { parseJsonText } from "../json-text.js";
import { jsonBlock } from "./json-view.js";

type Waitpoint = NonNullable<NonNullable<RunView["waiting"]>["waitpoint"]>;

/** The answer form of `waitpoint` of run `runId`; `readOnly` disables it. */
export function answerForm(runId: string, waitpoint: Waitpoint, readOnly: boolean): HTMLElement {
  const input = h("textarea", { class: "answer-input mono", testid: "answer-input" });
  input.rows = 4;
  input.placeholder = 'The answer, as JSON: true, "yes", { … }';
  const by = h("input", { class: "answer-by", testid: "answer-by" });
  by.placeholder = "Your name (optional)";
  const submit = h("button", { class: "button", testid: "answer-button" }, "Answer");
  const problem = h("p", { class: "error-text", testid: "answer-error" });
  problem.hidden = true;
  const done = h("p", { class: "muted", testid: "answer-done" });
  done.hidden = true;
  for (const control of [input, by, submit]) control.disabled = readOnly;
  if (readOnly) submit.title = "This dashboard is read-only.";

  const refuse = (message: string) => {
    problem.textContent = message;
    problem.hidden = false;
  };
  submit.addEventListener("click", async () => {
    problem.hidden = true;
    const answer = parseJsonText(input.value);
    if (answer === undefined) {
      refuse("The answer is not JSON: write a string in quotes, a number, true/false, or { … }.");
      return;
    }
    submit.disabled = true;
    try {
      const name = by.value.trim();
      await answerWaitpoint(runId, waitpoint.token, answer.value, name === "" ? undefined : name);
      done.textContent = "Answered: the run resumes.";
      done.hidden = false;
      for (const control of [input, by]) control.disabled = true;
    } catch (error) {
      submit.disabled = false;
      refuse(error instanceof ApiError ? error.message : String(error));
    }
  });

  return h(
    "section",
    { class: "panel answer-panel", testid: "answer-form" },
    h("h2", {}, "Waiting for an answer"),
    h("blockquote", { class: "model-text", testid: "answer-question" }, waitpoint.question),
    waitpoint.timeoutAt === undefined
      ? null
      : h("p", { class: "muted small" }, `Times out ${formatDateTime(waitpoint.timeoutAt)}.`),
    waitpoint.answerSchema === undefined
      ? null
      : jsonBlock(waitpoint.answerSchema, { label: "answer schema" }),
    input,
    h("div", { class: "actions" }, by, submit),
    problem,
    done,
  );
}
