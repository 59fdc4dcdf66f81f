/**
 * An AI SDK generate result (`doGenerate`, or a stream folded by
 * `stream-fold.ts`) as a {@link ModelResponse}. The provider package has
 * parsed the wire answer already, but the adapter does not trust the shape it
 * hands over: every field read here is checked, and one it cannot read fails
 * with a non-retryable `model_error` naming it, never a `TypeError`.
 *
 * - Read: `text` parts (joined), `reasoning` parts, `tool-call` parts (their
 *   `input` is JSON text; ids missing or repeated become `call_<step>_<n>`),
 *   the finish reason (`{ unified }` of v3/v4, or a plain string), usage.
 * - Kept for the next request: when a part is reasoning or carries provider
 *   metadata, every text, reasoning and call part becomes an output item, in
 *   order, with its metadata (docs/architecture/ai-sdk.md#provider-state).
 * - Skipped: sources, files, provider-executed tools and other parts errand
 *   does not offer or run.
 */
import type { OutputItem, ToolCall } from "@errand/core";
import type { ModelResponse } from "@errand/runtime";
import {
  CallIds,
  isObject,
  kindOf,
  malformed,
  optionalText,
  readArguments,
} from "@errand/runtime/ops";
import { readUsage } from "./usage.js";

type Fields = Record<string, unknown>;

/** Provider metadata as an output item stores it. */
type StoredMetadata = NonNullable<Extract<OutputItem, { type: "message" }>["providerMetadata"]>;

/**
 * A part's provider metadata as the log stores it (a JSON round trip, so a
 * run resumed from the log sends what the running worker sent), or
 * `undefined` when it has none.
 */
function readMetadata(value: unknown, where: string): StoredMetadata | undefined {
  if (value === undefined || value === null) return undefined;
  if (!isObject(value)) throw malformed(`${where}.providerMetadata is ${kindOf(value)}`);
  for (const [provider, fields] of Object.entries(value)) {
    if (!isObject(fields)) {
      throw malformed(`${where}.providerMetadata.${provider} is ${kindOf(fields)}`);
    }
  }
  const stored = JSON.parse(JSON.stringify(value)) as StoredMetadata;
  return Object.keys(stored).length === 0 ? undefined : stored;
}

function readFinish(value: unknown, calls: readonly ToolCall[]): string {
  const unified = isObject(value) ? value.unified : value;
  if (typeof unified === "string" && unified !== "") return unified.replaceAll("-", "_");
  return calls.length > 0 ? "tool_calls" : "stop";
}

/** A response being read, part by part. */
class ContentReader {
  private readonly texts: string[] = [];
  readonly calls: ToolCall[] = [];
  private readonly items: OutputItem[] = [];
  private keepItems = false;
  private readonly ids: CallIds;

  constructor(step: number) {
    this.ids = new CallIds(step);
  }

  add(part: unknown, index: number): void {
    const where = `content[${index}]`;
    if (!isObject(part)) throw malformed(`${where} is ${kindOf(part)}, not an object`);
    switch (part.type) {
      case "text":
        this.addText(part, where);
        break;
      case "reasoning":
        this.addReasoning(part, where);
        break;
      case "tool-call":
        this.addCall(part, where);
        break;
      case undefined:
        throw malformed(`${where} has no type`);
      default:
        break;
    }
  }

  private addText(part: Fields, where: string): void {
    const text = optionalText(part.text, `${where}.text`) ?? "";
    const providerMetadata = readMetadata(part.providerMetadata, where);
    if (providerMetadata !== undefined) this.keepItems = true;
    this.texts.push(text);
    this.items.push({ type: "message", text, ...(providerMetadata && { providerMetadata }) });
  }

  private addReasoning(part: Fields, where: string): void {
    const text = optionalText(part.text, `${where}.text`) ?? "";
    const providerMetadata = readMetadata(part.providerMetadata, where);
    this.keepItems = true;
    this.items.push({
      type: "reasoning",
      summary: [],
      text,
      ...(providerMetadata && { providerMetadata }),
    });
  }

  private addCall(part: Fields, where: string): void {
    if (part.providerExecuted === true) return;
    if (typeof part.toolName !== "string" || part.toolName === "") {
      throw malformed(`${where} (a tool call) has no toolName`);
    }
    const providerMetadata = readMetadata(part.providerMetadata, where);
    if (providerMetadata !== undefined) this.keepItems = true;
    const callId = this.ids.next(part.toolCallId, this.calls.length + 1);
    this.calls.push({ callId, name: part.toolName, args: readArguments(part.input) });
    this.items.push({
      type: "function_call",
      callId,
      ...(providerMetadata && { providerMetadata }),
    });
  }

  /** The text joined, or `undefined` when the response had none. */
  text(): string | undefined {
    return this.texts.length === 0 ? undefined : this.texts.join("");
  }

  /** The items to log: none unless a part needs sending back; a single text's item without its copy of the text. */
  outputItems(): OutputItem[] | undefined {
    if (!this.keepItems) return undefined;
    if (this.texts.length > 1) return this.items;
    return this.items.map((item) => {
      if (item.type !== "message") return item;
      const { text: _text, ...rest } = item;
      return rest;
    });
  }
}

/**
 * The {@link ModelResponse} in `result`, a generate result of a model asked
 * for `step` (generated call ids carry it). Throws a non-retryable
 * `ModelError` naming the first field it cannot read.
 */
export function readResult(result: unknown, step: number): ModelResponse {
  if (!isObject(result)) throw malformed(`it is ${kindOf(result)}, not an object`);
  const { content } = result;
  if (!Array.isArray(content)) throw malformed("it has no content list");
  const reader = new ContentReader(step);
  for (const [index, part] of content.entries()) reader.add(part, index);
  const text = reader.text();
  const items = reader.outputItems();
  const response = isObject(result.response) ? result.response : {};
  const responseId =
    typeof response.id === "string" && response.id !== "" ? response.id : undefined;
  return {
    ...(text === undefined ? {} : { text }),
    calls: reader.calls,
    usage: readUsage(result.usage),
    finish: readFinish(result.finishReason, reader.calls),
    ...(items === undefined ? {} : { items }),
    ...(responseId === undefined ? {} : { responseId }),
  };
}
