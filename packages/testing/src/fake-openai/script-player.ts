/**
 * Deciding how to answer one chat request: which script plays (by model, or
 * by the test's own `scriptFor`), and which of its turns is due.
 */
import { ErrandError, Script, type ScriptTurn } from "@errand/core";
import { ConversationLedger } from "./conversation.js";
import type { ChatCompletionRequest } from "./wire-types.js";

/** How the fake server picks a script for a request. */
export interface ScriptSource {
  /** Scripts by model name: a request for `model` plays `scripts[model]`. */
  scripts?: Record<string, Script>;
  /**
   * Custom selection, asked first: return a script for this request (e.g. one
   * parsed out of the user message), or `undefined` to fall back to `scripts`.
   */
  scriptFor?: (request: ChatCompletionRequest) => Script | undefined;
}

/** What a request gets. */
export type Cue =
  | { kind: "unknown-model"; model: string }
  | { kind: "invalid-script"; message: string }
  /** `turn` is `undefined` when the script has run out. */
  | { kind: "turn"; turn: ScriptTurn | undefined };

/** Plays scripts turn by turn, statelessly except for the fail turns served. */
export class ScriptPlayer {
  private readonly ledger = new ConversationLedger();
  private readonly scripts: Record<string, Script>;

  /** Validates every script in `source.scripts` up front: a malformed one throws `invalid_spec`. */
  constructor(private readonly source: ScriptSource) {
    this.scripts = Object.fromEntries(
      Object.entries(source.scripts ?? {}).map(([model, script]) => {
        const parsed = Script.safeParse(script);
        if (parsed.success) return [model, parsed.data];
        throw new ErrandError(
          "invalid_spec",
          `the script for model "${model}" is invalid: ${parsed.error.message}`,
          { cause: parsed.error },
        );
      }),
    );
  }

  /** The models that have a script by name (for `GET /v1/models`). */
  models(): string[] {
    return Object.keys(this.scripts);
  }

  /** The cue for `request`. */
  cue(request: ChatCompletionRequest): Cue {
    const custom = this.source.scriptFor?.(request);
    const script = custom ?? this.scripts[request.model];
    if (script === undefined) return { kind: "unknown-model", model: request.model };
    const parsed = Script.safeParse(script);
    if (!parsed.success) {
      return {
        kind: "invalid-script",
        message: `scriptFor returned an invalid script: ${parsed.error.message}`,
      };
    }
    return { kind: "turn", turn: parsed.data[this.ledger.turnIndex(request)] };
  }

  /** Records that a fail turn was sent in answer to `request`, so its retry gets the next turn. */
  failServed(request: ChatCompletionRequest): void {
    this.ledger.recordFailServed(request);
  }
}
