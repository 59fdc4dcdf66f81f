/**
 * What a streaming model is writing now, as it arrives (the run's live
 * deltas): the step's text, and each tool call's arguments so far. A `start`
 * begins the step's answer again (a retried request, or a re-run after a
 * worker crash). The timeline's `model-responded` stays the step's truth.
 */
import type { LiveEntry } from "../api.js";
import { h, replaceChildren } from "../dom.js";

/** A panel that shows the deltas it is given. */
export class LiveText {
  readonly element: HTMLElement;
  private readonly label: HTMLElement;
  private readonly text: HTMLElement;
  private readonly calls: HTMLElement;
  private readonly callLines = new Map<number, { name: string; args: string; line: HTMLElement }>();

  constructor() {
    this.label = h("h2", {}, "Writing now");
    this.text = h("blockquote", { class: "model-text", testid: "live-text" });
    this.calls = h("div", { class: "mono small", testid: "live-calls" });
    this.element = h(
      "section",
      { class: "panel", testid: "live-panel" },
      this.label,
      this.text,
      this.calls,
    );
    this.element.hidden = true;
  }

  add(delta: LiveEntry): void {
    this.element.hidden = false;
    if (delta.type === "start") {
      this.label.textContent = `Writing now — step ${delta.step}`;
      this.text.textContent = "";
      this.callLines.clear();
      replaceChildren(this.calls);
    } else if (delta.type === "text") {
      this.text.append(delta.text);
    } else {
      let call = this.callLines.get(delta.index);
      if (call === undefined) {
        call = { name: delta.name ?? "tool", args: "", line: h("div", {}) };
        this.callLines.set(delta.index, call);
        this.calls.append(call.line);
      }
      call.args += delta.text;
      call.line.textContent = `${call.name}(${call.args}`;
    }
  }
}
