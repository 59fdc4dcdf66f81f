/**
 * A JSON value shown as indented text in a scrollable block, with a
 * "Show all" button when the server shortened it: the button asks for the
 * whole value and shows it in place. The server cuts deep nesting already;
 * the page cuts it again below {@link MAX_SHOWN_DEPTH} levels, so no value
 * can make the page indent thousands of levels.
 */
import { type Child, h, replaceChildren } from "../dom.js";

/** The levels of objects and arrays the page indents; deeper ones are shown as a note. */
const MAX_SHOWN_DEPTH = 64;

/** Indented JSON, objects and arrays below {@link MAX_SHOWN_DEPTH} levels cut; a string as it is. */
function jsonText(value: unknown): string {
  if (typeof value === "string") return value;
  const depths = new WeakMap<object, number>();
  function cutDeep(this: unknown, _key: string, inner: unknown): unknown {
    if (typeof inner !== "object" || inner === null) return inner;
    const depth = typeof this === "object" && this !== null ? (depths.get(this) ?? 0) + 1 : 0;
    if (depth > MAX_SHOWN_DEPTH) return `… [nested deeper than ${MAX_SHOWN_DEPTH} levels]`;
    depths.set(inner, depth);
    return inner;
  }
  return JSON.stringify(value, cutDeep, 2) ?? "undefined";
}

/** Options of {@link jsonBlock}. */
export interface JsonBlockOptions {
  /** The value was shortened: offer the whole of it. */
  truncated?: boolean;
  /** Reads the whole value. */
  loadAll?: () => Promise<unknown>;
  /** A label shown above the value. */
  label?: string;
}

/** A block showing `value`. */
export function jsonBlock(value: unknown, options: JsonBlockOptions = {}): HTMLElement {
  const pre = h("pre", { class: "json" }, jsonText(value));
  const block = h(
    "div",
    { class: "json-block" },
    options.label === undefined ? null : h("div", { class: "json-label" }, options.label),
    pre,
  );
  if (options.truncated && options.loadAll) {
    const loadAll = options.loadAll;
    const button: HTMLButtonElement = h(
      "button",
      {
        class: "link-button",
        testid: "show-all",
        on: {
          click: async () => {
            button.disabled = true;
            button.textContent = "Loading…";
            try {
              replaceChildren(pre, jsonText(await loadAll()));
              pre.classList.add("expanded");
              button.remove();
            } catch (error) {
              button.disabled = false;
              button.textContent = `Could not load: ${(error as Error).message}`;
            }
          },
        },
      },
      "Show all",
    );
    block.append(h("div", { class: "truncated-note" }, "Shortened. ", button));
  }
  return block;
}

/** A row of `label: value` facts. */
export function facts(rows: readonly [string, Child][]): HTMLElement {
  return h(
    "dl",
    { class: "facts" },
    rows.flatMap(([label, value]) =>
      value === undefined || value === null || value === ""
        ? []
        : [h("dt", {}, label), h("dd", {}, value)],
    ),
  );
}
