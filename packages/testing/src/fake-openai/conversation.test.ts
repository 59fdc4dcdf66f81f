import { describe, expect, it } from "vitest";
import { ConversationLedger, conversationKey } from "./conversation.js";
import type { ChatCompletionRequest } from "./wire-types.js";

const opening = [
  { role: "system", content: "be brief" },
  { role: "user", content: "hello" },
];

function request(
  model: string,
  messages: ChatCompletionRequest["messages"],
): ChatCompletionRequest {
  return { model, messages };
}

describe("conversationKey", () => {
  it("stays the same as the conversation grows past its first user message", () => {
    const first = request("m", opening);
    const later = request("m", [
      ...opening,
      { role: "assistant", content: "hi" },
      { role: "user", content: "and now?" },
    ]);
    expect(conversationKey(later)).toBe(conversationKey(first));
  });

  it("differs by opening message and by model", () => {
    const base = conversationKey(request("m", opening));
    expect(conversationKey(request("other", opening))).not.toBe(base);
    const otherUser = [opening[0]!, { role: "user", content: "goodbye" }];
    expect(conversationKey(request("m", otherUser))).not.toBe(base);
  });
});

describe("ConversationLedger", () => {
  it("counts assistant messages, plus the fail turns served to that conversation only", () => {
    const ledger = new ConversationLedger();
    const fresh = request("m", opening);
    const oneAnswer = request("m", [...opening, { role: "assistant", content: "x" }]);
    const stranger = request("m", [{ role: "user", content: "someone else" }]);

    expect(ledger.turnIndex(fresh)).toBe(0);
    expect(ledger.turnIndex(oneAnswer)).toBe(1);

    ledger.recordFailServed(fresh);
    expect(ledger.turnIndex(fresh)).toBe(1);
    expect(ledger.turnIndex(oneAnswer)).toBe(2);
    expect(ledger.turnIndex(stranger)).toBe(0);
  });
});
