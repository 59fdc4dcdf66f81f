/**
 * The scripted model (docs/architecture/defaults.md#the-scripted-model): plays a script of turns, one per model
 * request, so agents run without a real model in the demo and in tests. The
 * same turns play over HTTP in the fake OpenAI server of `@errand/testing`.
 */
import { Script, type ScriptTurn, type ToolCall } from "@errand/core";
import { abortableSleep } from "./abort.js";
import { ModelError } from "./errors.js";
import type { Agent } from "./model.js";
import {
  decodeToolArguments,
  type Model,
  type ModelRequest,
  type ModelResponse,
  type TranscriptMessage,
} from "./model.js";

/** Options of {@link scriptedModel}. */
export interface ScriptedModelOptions {
  /** The model's name in logs. Default `scripted`. */
  name?: string;
}

function inputScript(input: unknown): unknown {
  if (typeof input !== "object" || input === null || !("script" in input)) return undefined;
  return input.script;
}

/**
 * The script a run plays: the run input's `script` when the agent allows
 * scripts from input (`scriptFromInput`) and the input has one, else the
 * agent's own `script`, else an empty script. An invalid `input.script` is a
 * non-retryable `ModelError` naming the problem.
 */
export function scriptFor(agent: Agent, input: unknown): Script {
  const fromInput = agent.scriptFromInput ? inputScript(input) : undefined;
  if (fromInput === undefined) return agent.script ?? [];
  const parsed = Script.safeParse(fromInput);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((i) => `${i.path.join(".") || "script"}: ${i.message}`);
  throw new ModelError(`invalid script in input.script: ${problems.join("; ")}`);
}

/** A rough token count (four characters a token), so scripted runs report usage too. */
function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

function transcriptText(messages: TranscriptMessage[]): string {
  return messages.map((m) => (m.role === "assistant" ? JSON.stringify(m) : m.content)).join("\n");
}

function answer(turn: ScriptTurn | undefined, request: ModelRequest): ModelResponse {
  const say = turn && !("fail" in turn) ? turn.say : undefined;
  const scripted = turn && !("fail" in turn) ? (turn.call ?? []) : [];
  const calls: ToolCall[] = scripted.map((c, i) => ({
    callId: `call_${request.step}_${i + 1}`,
    name: c.tool,
    args: typeof c.args === "string" ? decodeToolArguments(c.args) : (c.args ?? {}),
  }));
  const text = say ?? (calls.length === 0 ? "" : undefined);
  return {
    ...(text === undefined ? {} : { text }),
    calls,
    usage: {
      inputTokens: estimateTokens(transcriptText(request.messages)),
      outputTokens: estimateTokens((text ?? "") + JSON.stringify(calls)),
    },
    finish: calls.length > 0 ? "tool_calls" : "stop",
  };
}

/**
 * A {@link Model} that plays scripts. The turn for a request is the number of
 * model responses already in the run (`step - 1`) plus the failed turns this
 * model already served to that run, so a retried failure moves on to the next
 * turn. A turn's `sleepMs` is an abortable delay; `fail` rejects with a
 * `ModelError`, retryable when the turn's `status` is 429 or 5xx (its
 * `retryAfterSeconds` becomes the retry delay). Past the end of the script the
 * model answers with empty text. It honours no model settings (a script
 * cannot be told a temperature): an agent that gives any is refused with
 * `settings_not_supported`.
 */
export function scriptedModel(options: ScriptedModelOptions = {}): Model {
  const failuresServed = new Map<string, number>();
  return {
    name: options.name ?? "scripted",
    supportsTools: true,
    async respond(request, signal) {
      const script = scriptFor(request.agent, request.input);
      const served = failuresServed.get(request.runId) ?? 0;
      const turn = script[request.step - 1 + served];
      if (turn?.sleepMs) await abortableSleep(turn.sleepMs, signal);
      if (turn && "fail" in turn) {
        failuresServed.set(request.runId, served + 1);
        const status = turn.status;
        throw new ModelError(turn.fail, {
          retryable: status !== undefined && (status === 429 || status >= 500),
          ...(status === undefined ? {} : { status }),
          ...(turn.retryAfterSeconds === undefined
            ? {}
            : { retryAfterMs: turn.retryAfterSeconds * 1000 }),
        });
      }
      return answer(turn, request);
    },
  };
}
