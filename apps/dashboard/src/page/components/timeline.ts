/**
 * A run's event timeline, step by step: each event a card with its seq,
 * time since the run was queued and what happened — model responses with
 * their text and tool calls, tool calls and results, refusals with their
 * messages, the recorded output, waitpoints (the question, who answered,
 * when, and the answer), cancels, the end. Large values come
 * shortened, with "Show all"; a result stored as a blob is loaded on request.
 */
import { readBlob, readFullEvent, type TimelineEvent } from "../api.js";
import { type Child, h } from "../dom.js";
import { formatBytes, formatClock, formatDuration } from "../format.js";
import { jsonBlock } from "./json-view.js";

type Data = Record<string, unknown>;

interface Call {
  callId: string;
  name: string;
  args: unknown;
}

const LABELS: Record<string, string> = {
  "run-queued": "Queued",
  "run-started": "Started",
  "model-responded": "Model responded",
  "tool-called": "Tool called",
  "tool-result": "Tool result",
  "run-parked": "Parked",
  "waitpoint-created": "Asked",
  "waitpoint-completed": "Answered",
  "waitpoint-timed-out": "No answer in time",
  "output-recorded": "Output recorded",
  refused: "Refused",
  "cancel-requested": "Cancel requested",
  cancelled: "Cancelled",
  failed: "Failed",
  finished: "Finished",
};

/** Renders events of one run; `queuedAt` is the time offsets count from. */
export class Timeline {
  readonly element: HTMLOListElement = h("ol", { class: "timeline", testid: "timeline" });
  private lastSeq = 0;

  constructor(
    private readonly runId: string,
    private readonly queuedAt: string,
  ) {}

  /** The seq of the last event shown. */
  get seq(): number {
    return this.lastSeq;
  }

  /** Adds `event` unless it is already shown; `live` marks it as just arrived. */
  add(event: TimelineEvent, live = false): void {
    if (event.seq <= this.lastSeq) return;
    this.lastSeq = event.seq;
    const item = this.render(event);
    if (live) item.classList.add("arrived");
    this.element.append(item);
  }

  private whole(seq: number, pick: (data: Data) => unknown): () => Promise<unknown> {
    return async () => pick((await readFullEvent(this.runId, seq)).data as Data);
  }

  private block(
    event: TimelineEvent,
    value: unknown,
    pick: (data: Data) => unknown,
    label?: string,
  ) {
    return jsonBlock(value, {
      truncated: event.truncated,
      loadAll: this.whole(event.seq, pick),
      ...(label === undefined ? {} : { label }),
    });
  }

  private render(event: TimelineEvent): HTMLLIElement {
    const data = event.data as Data;
    const offset = Date.parse(event.at) - Date.parse(this.queuedAt);
    const step = typeof data.step === "number" ? `step ${data.step}` : undefined;
    return h(
      "li",
      {
        class: `event event-${event.type}`,
        testid: "timeline-event",
        attrs: { "data-type": event.type, "data-seq": String(event.seq) },
      },
      h("div", { class: "event-seq" }, String(event.seq)),
      h(
        "div",
        { class: "event-body" },
        h(
          "div",
          { class: "event-head" },
          h("span", { class: "event-type" }, LABELS[event.type] ?? event.type),
          h(
            "span",
            { class: "event-meta" },
            [step, `+${formatDuration(Math.max(0, offset))}`].filter(Boolean).join(" · "),
          ),
          h("time", { class: "event-time", title: event.at }, formatClock(event.at)),
        ),
        this.content(event, data),
      ),
    );
  }

  private content(event: TimelineEvent, data: Data): Child {
    switch (event.type) {
      case "run-queued":
        return [
          h(
            "p",
            { class: "event-line" },
            `Agent ${String(data.agent)}`,
            data.depth ? ` · depth ${String(data.depth)}` : "",
          ),
          this.block(event, data.input, (d) => d.input, "input"),
        ];
      case "run-started":
        return h(
          "p",
          { class: "event-line" },
          `Attempt ${String(data.attempt)} on ${String(data.workerId)}`,
        );
      case "model-responded": {
        const calls = (data.calls as Call[]) ?? [];
        const usage = data.usage as { inputTokens: number; outputTokens: number };
        return [
          typeof data.text === "string" && data.text !== ""
            ? h("blockquote", { class: "model-text" }, data.text)
            : null,
          calls.map((call, index) =>
            h(
              "div",
              { class: "call" },
              h("span", { class: "tool-name" }, call.name),
              this.block(event, call.args, (d) => (d.calls as Call[])[index]?.args),
            ),
          ),
          h(
            "p",
            { class: "event-line muted" },
            `${usage.inputTokens} in + ${usage.outputTokens} out tokens · finish: ${String(data.finish)}`,
          ),
        ];
      }
      case "tool-called":
        return [
          h("span", { class: "tool-name" }, String(data.name)),
          this.block(event, data.args, (d) => d.args),
        ];
      case "tool-result":
        return this.toolResult(event, data);
      case "run-parked":
        return h(
          "p",
          { class: "event-line", testid: "parked-reason" },
          `${String(data.reason)} — its worker slot is free until ${
            Array.isArray(data.waitFor) &&
            data.waitFor.length === 0 &&
            data.waitForChildren === undefined
              ? "it is answered"
              : "they have"
          }`,
        );
      case "waitpoint-created":
        return [
          h(
            "blockquote",
            { class: "model-text", testid: "waitpoint-question" },
            String(data.question),
          ),
          typeof data.timeoutAt === "string"
            ? h("p", { class: "event-line muted" }, `times out ${data.timeoutAt}`)
            : null,
        ];
      case "waitpoint-completed":
        return [
          h(
            "p",
            { class: "event-line", testid: "waitpoint-answered-by" },
            `Answered by ${typeof data.answeredBy === "string" ? data.answeredBy : "someone unnamed"} at ${event.at}`,
          ),
          this.block(event, data.answer, (d) => d.answer, "answer"),
        ];
      case "waitpoint-timed-out":
        return h("p", { class: "event-line" }, "No answer came before the timeout.");
      case "output-recorded":
        return this.block(event, data.output, (d) => d.output);
      case "refused":
        return [
          h(
            "p",
            { class: "event-line" },
            h("span", { class: "tag" }, String(data.reason)),
            data.name ? ` ${String(data.name)}` : "",
          ),
          h("p", { class: "refusal", testid: "refusal-message" }, String(data.message)),
          Array.isArray(data.issues)
            ? h(
                "ul",
                { class: "issues" },
                data.issues.map((issue) => h("li", {}, String(issue))),
              )
            : null,
        ];
      case "cancel-requested":
        return h(
          "p",
          { class: "event-line" },
          [data.reason, data.by ? `by ${String(data.by)}` : ""].filter(Boolean).join(" — ") || "—",
        );
      case "cancelled":
        return h("p", { class: "event-line" }, String(data.reason ?? "cancelled"));
      case "failed":
        return h(
          "p",
          { class: "event-line error-text" },
          h("span", { class: "tag" }, String(data.code)),
          ` ${String(data.message)}`,
        );
      case "finished":
        return typeof data.text === "string" && data.text !== ""
          ? h("blockquote", { class: "model-text" }, data.text)
          : null;
      default:
        return this.block(event, data, (d) => d);
    }
  }

  private toolResult(event: TimelineEvent, data: Data): Child {
    const status = data.ok
      ? h("span", { class: "tag ok" }, "ok")
      : h("span", { class: "tag bad" }, "error");
    const ref = data.ref as { ref: string; sizeBytes: number } | undefined;
    const parts: Child[] = [
      h("p", { class: "event-line" }, status, ` ${formatBytes(Number(data.bytes ?? 0))}`),
    ];
    if (typeof data.error === "string") parts.push(h("p", { class: "refusal" }, data.error));
    if (data.result !== undefined) parts.push(this.block(event, data.result, (d) => d.result));
    if (ref !== undefined) parts.push(this.blobButton(ref));
    return parts;
  }

  private blobButton(ref: { ref: string; sizeBytes: number }): HTMLElement {
    const n = Number(ref.ref.split("/").at(-1));
    const holder = h("div", { class: "blob" });
    const button: HTMLButtonElement = h(
      "button",
      {
        class: "link-button",
        on: {
          click: async () => {
            button.disabled = true;
            const blob = await readBlob(this.runId, n);
            holder.replaceChildren(jsonBlock(blob.json ?? blob.text, { label: blob.ref }));
          },
        },
      },
      `Load the stored result (${formatBytes(ref.sizeBytes)})`,
    );
    holder.append(button);
    return holder;
  }
}
