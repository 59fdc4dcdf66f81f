/**
 * The scripted model's turns (docs/architecture/defaults.md#the-scripted-model): one turn per model request. Shared by
 * the in-process scripted model and the fake OpenAI-compatible server, so a
 * script plays the same whether or not it crosses HTTP.
 */
import { z } from "zod";

/** One tool call a scripted turn makes. */
export const ScriptCall = z.object({ tool: z.string().min(1), args: z.unknown() });
export type ScriptCall = z.infer<typeof ScriptCall>;

const sleepMs = z.number().int().nonnegative().optional();

/** A turn that answers: text, tool calls, or both; optionally after an abortable delay. */
export const ScriptAnswerTurn = z.strictObject({
  say: z.string().optional(),
  call: z.array(ScriptCall).optional(),
  sleepMs,
});
/**
 * A turn whose model request fails with `message`. Over HTTP, `status`
 * (default 500) and `retryAfterSeconds` shape the error response.
 */
export const ScriptFailTurn = z.strictObject({
  fail: z.string(),
  status: z.number().int().min(400).max(599).optional(),
  retryAfterSeconds: z.number().nonnegative().optional(),
  sleepMs,
});
export const ScriptTurn = z.union([ScriptFailTurn, ScriptAnswerTurn]);
export type ScriptTurn = z.infer<typeof ScriptTurn>;

/** A whole script. When it runs out, the model answers with empty text. */
export const Script = z.array(ScriptTurn);
export type Script = z.infer<typeof Script>;
