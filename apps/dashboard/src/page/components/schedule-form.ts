/**
 * The form that creates a schedule (opened by the page's button, which a
 * read-only dashboard disables): its id, agent and input, when it ticks
 * (a cron expression in a time zone, or an interval), its overlap and
 * catch-up, and the metadata each run carries. The page checks only that the
 * input and the metadata are JSON; everything else (metadata an object of
 * strings among it) is checked where the CLI's schedules are, by the
 * engine's `schedules.upsert` behind the guarded API (session token, CSRF header, same origin), whose
 * refusal — a cron expression of the wrong field count, an unknown agent, an
 * input its schema refuses — is shown under the form, nothing written. An id
 * already listed is replaced, once confirmed.
 */
import { ApiError, type ScheduleView, upsertSchedule } from "../api.js";
import { h } from "../dom.js";
import { parseJsonText } from "../json-text.js";
import { confirmAction } from "./confirm.js";

/** What the form needs of its page. */
export interface ScheduleFormOptions {
  /** Whether a schedule of this id is listed now (saving it replaces it). */
  isListed(id: string): boolean;
  /** Called with the schedule once saved. */
  saved(schedule: ScheduleView): void;
}

/** A labelled field of the form. */
function field(label: string, control: HTMLElement, hint?: string): HTMLElement {
  return h(
    "label",
    { class: "form-field" },
    h("span", { class: "form-label" }, label),
    control,
    hint === undefined ? null : h("span", { class: "muted small" }, hint),
  );
}

function textInput(testid: string, placeholder: string): HTMLInputElement {
  const input = h("input", { class: "input", testid });
  input.placeholder = placeholder;
  return input;
}

function choice(testid: string, options: readonly [value: string, label: string][]) {
  return h(
    "select",
    { class: "input", testid },
    options.map(([value, label]) => h("option", { attrs: { value } }, label)),
  );
}

/** The create-a-schedule form. */
interface ScheduleForm {
  /** The form, hidden until {@link ScheduleForm.open}. */
  element: HTMLElement;
  open(): void;
  /** Offers `agents` (those the workers run) as the agent's choices; any name may be typed. */
  offerAgents(agents: readonly string[]): void;
}

/** The create-a-schedule form of a page. */
export function scheduleForm(options: ScheduleFormOptions): ScheduleForm {
  const id = textInput("schedule-id-input", "nightly-report");
  const agent = textInput("schedule-agent-input", "agent name");
  const agentList = h("datalist", { attrs: { id: "schedule-agents" } });
  agent.setAttribute("list", "schedule-agents");
  const kind = choice("schedule-kind", [
    ["cron", "cron expression"],
    ["every", "interval"],
  ]);
  const cron = textInput("schedule-cron-input", "0 3 * * *");
  const timezone = textInput("schedule-timezone-input", "UTC");
  const everyMs = textInput("schedule-every-input", "60000");
  everyMs.inputMode = "numeric";
  const overlap = choice("schedule-overlap", [
    ["skip", "skip the tick (default)"],
    ["allow", "allow a second run"],
    ["cancel-previous", "cancel the previous run"],
  ]);
  const catchUp = choice("schedule-catch-up", [
    ["last", "the last tick due (default)"],
    ["none", "none"],
    ["all", "all of them (at most 100)"],
  ]);
  const input = h("textarea", { class: "input mono", testid: "schedule-input" });
  input.rows = 4;
  input.defaultValue = "null";
  const metadata = h("textarea", { class: "input mono", testid: "schedule-metadata-input" });
  metadata.rows = 2;
  metadata.placeholder = '{ "team": "growth" }';
  const submit = h(
    "button",
    { class: "button primary", testid: "schedule-create-button", attrs: { type: "submit" } },
    "Create schedule",
  );
  const close = h(
    "button",
    { class: "button", testid: "schedule-form-close", attrs: { type: "button" } },
    "Close",
  );
  const problem = h("p", { class: "error-text", testid: "schedule-form-error" });
  problem.hidden = true;

  const cronFields = h(
    "div",
    { class: "form-row" },
    field("cron", cron, "5 fields (minute hour day month weekday), or 6 with seconds first"),
    field("time zone", timezone, "IANA, default UTC"),
  );
  const everyFields = h(
    "div",
    { class: "form-row" },
    field("every (ms)", everyMs, "at least 1000"),
  );
  const showKind = () => {
    cronFields.hidden = kind.value !== "cron";
    everyFields.hidden = kind.value !== "every";
  };
  kind.addEventListener("change", showKind);
  showKind();

  const refuse = (message: string) => {
    problem.textContent = message;
    problem.hidden = false;
  };

  /** The spec as `schedules.upsert` takes it: the fields filled in, trimmed; metadata only if given. */
  const specOf = (parsedInput: unknown, parsedMetadata?: unknown): Record<string, unknown> => {
    const when =
      kind.value === "cron"
        ? {
            cron: cron.value.trim(),
            ...(timezone.value.trim() === "" ? {} : { timezone: timezone.value.trim() }),
          }
        : everyMs.value.trim() === ""
          ? {}
          : { everyMs: Number(everyMs.value.trim()) };
    return {
      id: id.value.trim(),
      agent: agent.value.trim(),
      input: parsedInput,
      ...when,
      overlap: overlap.value,
      catchUp: catchUp.value,
      ...(parsedMetadata === undefined ? {} : { metadata: parsedMetadata }),
    };
  };

  const form = h(
    "form",
    { class: "panel schedule-form", testid: "schedule-form" },
    h("h2", {}, "New schedule"),
    h("div", { class: "form-row" }, field("id", id), field("agent", agent), agentList),
    h("div", { class: "form-row" }, field("when", kind)),
    cronFields,
    everyFields,
    h("div", { class: "form-row" }, field("overlap", overlap), field("catch-up", catchUp)),
    field("input (JSON)", input, "each run's input, checked against the agent's input schema"),
    field(
      "metadata (JSON, optional)",
      metadata,
      "labels each run carries: an object of strings, as fire's metadata",
    ),
    h("div", { class: "actions" }, submit, close),
    problem,
  );
  form.hidden = true;
  close.addEventListener("click", () => {
    form.hidden = true;
  });

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    problem.hidden = true;
    const parsedInput = parseJsonText(input.value);
    if (parsedInput === undefined) {
      refuse("The input is not JSON: write null, a string in quotes, a number, or { … }.");
      return;
    }
    const metadataText = metadata.value.trim();
    const parsedMetadata = metadataText === "" ? undefined : parseJsonText(metadataText);
    if (parsedMetadata === undefined && metadataText !== "") {
      refuse(
        'The metadata is not JSON: write an object of strings, { "team": "growth" }, or leave it empty.',
      );
      return;
    }
    const spec = specOf(parsedInput.value, parsedMetadata?.value);
    if (typeof spec.id === "string" && options.isListed(spec.id)) {
      const replace = await confirmAction({
        title: `Replace schedule ${spec.id}?`,
        message:
          "A schedule of this id exists: its agent, input and timing become these (a paused one stays paused).",
        confirmLabel: "Replace",
        danger: true,
      });
      if (replace === undefined) return;
    }
    submit.disabled = true;
    try {
      const schedule = await upsertSchedule(spec);
      form.hidden = true;
      form.reset();
      showKind();
      options.saved(schedule);
    } catch (error) {
      refuse(error instanceof ApiError ? error.message : String(error));
    } finally {
      submit.disabled = false;
    }
  });

  return {
    element: form,
    open() {
      form.hidden = false;
      id.focus();
    },
    offerAgents(agents) {
      agentList.replaceChildren(...agents.map((name) => h("option", { attrs: { value: name } })));
    },
  };
}
