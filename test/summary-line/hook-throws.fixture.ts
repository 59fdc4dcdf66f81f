/** A suite whose `beforeAll` throws, so its two tests do not run, beside a test that passes. */
import { beforeAll, describe, expect, it } from "vitest";

describe("a suite whose set-up fails", () => {
  beforeAll(() => {
    throw new Error("the set-up failed");
  });
  it("is not run", () => expect(1).toBe(1));
  it("is not run either", () => expect(1).toBe(1));
});

it("passes", () => expect(1).toBe(1));
