/** A test that fails, one skipped on purpose, and a test that leaves an error thrown outside it. */
import { expect, it } from "vitest";

it("fails", () => expect(1).toBe(2));

it.skip("is skipped", () => expect(1).toBe(1));

it("leaves an error behind", () => {
  setTimeout(() => {
    throw new Error("thrown after the test");
  }, 0);
});
