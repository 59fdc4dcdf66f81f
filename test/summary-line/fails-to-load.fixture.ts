/** A test file that throws while it loads, before it declares its test: that test is never collected. */
import { expect, it } from "vitest";

/** Throws: what a broken import or a failing top-level set-up does. */
function loadFails(): void {
  throw new Error("this file fails to load");
}

loadFails();

it("is never collected", () => expect(1).toBe(1));
