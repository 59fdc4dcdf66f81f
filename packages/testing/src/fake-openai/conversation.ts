/**
 * Which turn of its script a request is, worked out from the request itself
 * so that concurrent runs and resumed runs each get their own turns.
 *
 * Turn index = the assistant messages already in the request + the fail turns
 * already served to the same conversation. A conversation is the model plus
 * the messages up to and including the first user message, so every request
 * of one run (and of its resumption) maps to the same conversation.
 */
import { createHash } from "node:crypto";
import type { ChatCompletionRequest, WireMessage } from "./wire-types.js";

/** The messages that open a conversation and never change as it goes on. */
function openingMessages(messages: readonly WireMessage[]): readonly WireMessage[] {
  const firstUser = messages.findIndex((message) => message.role === "user");
  if (firstUser >= 0) return messages.slice(0, firstUser + 1);
  const firstReply = messages.findIndex(
    (message) => message.role === "assistant" || message.role === "tool",
  );
  return firstReply >= 0 ? messages.slice(0, firstReply) : messages;
}

/** A stable identifier of the conversation a request belongs to. */
export function conversationKey(request: ChatCompletionRequest): string {
  return createHash("sha256")
    .update(JSON.stringify([request.model, openingMessages(request.messages)]))
    .digest("hex");
}

/** Counts fail turns served per conversation: a fail turn uses up its slot in the script. */
export class ConversationLedger {
  private readonly failsServed = new Map<string, number>();

  /** The index of the script turn that answers `request`. */
  turnIndex(request: ChatCompletionRequest): number {
    const answered = request.messages.filter((message) => message.role === "assistant").length;
    return answered + (this.failsServed.get(conversationKey(request)) ?? 0);
  }

  /** Records that a fail turn was sent to the conversation of `request`. */
  recordFailServed(request: ChatCompletionRequest): void {
    const key = conversationKey(request);
    this.failsServed.set(key, (this.failsServed.get(key) ?? 0) + 1);
  }
}
