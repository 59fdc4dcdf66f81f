/**
 * `startFakeGemini`: a loopback server speaking the Gemini API
 * (`POST /v1beta/models/<model>:generateContent`, and
 * `:streamGenerateContent?alt=sse` as server-sent events of partial
 * responses), so `@ai-sdk/google` parses every answer itself. A thinking
 * turn answers with a thought summary part and puts a thought signature on
 * its first function call (or its text), as Gemini's thinking models do;
 * usage reports cached and thought tokens.
 *
 * It refuses what the real API refuses, with a 400 `INVALID_ARGUMENT`: a
 * function call of an earlier turn sent back without the thought signature
 * the server gave it, or with another one.
 */
import { createHmac } from "node:crypto";
import type { ProviderTurn, TurnCall } from "./provider-turn.js";
import { TurnCounter } from "./provider-turn.js";
import {
  type FakeProvider,
  type FakeProviderOptions,
  failureHeaders,
  startWireServer,
  type WireReply,
} from "./wire-server.js";

type Part = Record<string, unknown>;
type Content = { role?: string; parts?: Part[] };

const STATUS_NAMES: Record<number, string> = {
  400: "INVALID_ARGUMENT",
  403: "PERMISSION_DENIED",
  404: "NOT_FOUND",
  429: "RESOURCE_EXHAUSTED",
  500: "INTERNAL",
  503: "UNAVAILABLE",
};

function errorBody(code: number, message: string) {
  return { error: { code, message, status: STATUS_NAMES[code] ?? "UNKNOWN" } };
}

/** The thought signature the server gives the call or text of a step. */
function signatureOf(step: number, what: string): string {
  return createHmac("sha256", "fake-gemini").update(`${step}:${what}`).digest("base64");
}

/** Why the signatures sent back in `contents` would be refused, or `undefined`. */
function signatureRefusal(contents: readonly Content[], issued: ReadonlyMap<string, string>) {
  let step = 0;
  for (const [index, content] of contents.entries()) {
    if (content.role !== "model") continue;
    step++;
    for (const part of content.parts ?? []) {
      const call = part.functionCall as { name?: string } | undefined;
      if (call === undefined) continue;
      const expected = issued.get(`${step}:${String(call.name)}`);
      if (expected !== undefined && part.thoughtSignature !== expected) {
        return `Function call is missing a thought_signature in functionCall parts (contents[${index}]).`;
      }
    }
  }
  return undefined;
}

function answerParts(
  turn: { say?: string; call?: TurnCall[]; think?: boolean },
  step: number,
  issued: Map<string, string>,
): Part[] {
  const parts: Part[] = [];
  if (turn.think) parts.push({ text: `Step ${step}: weighing the tools.`, thought: true });
  let signed = !turn.think;
  const signature = (what: string): Part => {
    if (signed) return {};
    signed = true;
    const value = signatureOf(step, what);
    issued.set(`${step}:${what}`, value);
    return { thoughtSignature: value };
  };
  for (const call of turn.call ?? []) {
    parts.push({ functionCall: { name: call.tool, args: call.args }, ...signature(call.tool) });
  }
  if (turn.say !== undefined) parts.push({ text: turn.say, ...signature("text") });
  return parts;
}

function usageOf(step: number, parts: readonly Part[], thinking: boolean) {
  const prompt = 120 + 15 * step;
  const candidates = 10 + 4 * parts.length;
  const thoughts = thinking ? 25 + step : 0;
  return {
    promptTokenCount: prompt,
    candidatesTokenCount: candidates,
    ...(thinking ? { thoughtsTokenCount: thoughts } : {}),
    cachedContentTokenCount: 64 * (step - 1),
    totalTokenCount: prompt + candidates + thoughts,
  };
}

/** Starts the fake on a free 127.0.0.1 port; its `baseURL` ends with `/v1beta`. */
export async function startFakeGemini(options: FakeProviderOptions): Promise<FakeProvider> {
  const counter = new TurnCounter();
  const issued = new Map<string, string>();

  async function answer(reply: WireReply): Promise<void> {
    const { recorded } = reply;
    const intercepted = options.intercept?.(recorded);
    if (intercepted) return reply.json(intercepted.status, intercepted.body);
    const route = /^\/v1beta\/models\/([^:/]+):(generateContent|streamGenerateContent)/.exec(
      recorded.path,
    );
    if (recorded.method !== "POST" || route === null) {
      return reply.json(404, errorBody(404, `Not found: ${recorded.path}`));
    }
    const model = decodeURIComponent(route[1] ?? "");
    const contents = recorded.body?.contents;
    if (!Array.isArray(contents) || contents.length === 0) {
      return reply.json(
        400,
        errorBody(400, "* GenerateContentRequest.contents: contents is not specified"),
      );
    }
    const refusal = signatureRefusal(contents as Content[], issued);
    if (refusal) return reply.json(400, errorBody(400, refusal));
    const firstText = (contents as Content[])[0]?.parts?.find((part) => "text" in part)?.text;
    const turns = options.turnsFor(model, typeof firstText === "string" ? firstText : undefined);
    if (turns === undefined) {
      return reply.json(404, errorBody(404, `models/${model} is not found for API version v1beta`));
    }
    const answered = (contents as Content[]).filter((c) => c.role === "model").length;
    const key = `${model}\n${JSON.stringify((contents as Content[])[0])}`;
    const turn: ProviderTurn = turns[counter.due(key, answered)] ?? { say: "" };
    if ("malformed" in turn) {
      return route[2] !== "generateContent"
        ? reply.sse([{ data: turn.malformed }])
        : reply.json(200, turn.malformed);
    }
    if ("fail" in turn) {
      counter.failed(key);
      const status = turn.status ?? 500;
      const headers = failureHeaders(turn);
      return reply.json(status, errorBody(status, turn.fail), headers);
    }
    if (turn.sleepMs && !(await reply.hold(turn.sleepMs))) return;
    const step = answered + 1;
    const parts = answerParts(turn, step, issued);
    const usageMetadata = usageOf(step, parts, turn.think === true);
    const whole = {
      candidates: [{ content: { role: "model", parts }, finishReason: "STOP", index: 0 }],
      usageMetadata,
      modelVersion: model,
      responseId: `gemini_${step}_${recorded.rawBody.length}`,
    };
    if (route[2] === "generateContent") return reply.json(200, whole);
    const chunks = parts.map((part, index) => ({
      candidates: [
        {
          content: { role: "model", parts: [part] },
          ...(index === parts.length - 1 ? { finishReason: "STOP" } : {}),
          index: 0,
        },
      ],
      ...(index === parts.length - 1 ? { usageMetadata } : {}),
      modelVersion: model,
      responseId: whole.responseId,
    }));
    reply.sse(chunks.map((data) => ({ data })));
  }

  const server = await startWireServer(answer, (message) => errorBody(500, message));
  return { baseURL: `${server.origin}/v1beta`, requests: server.requests, close: server.close };
}
