import { describe, expect, it } from "vitest";
import { isSecretKey } from "./secret-keys.js";

describe("isSecretKey", () => {
  it("knows secret keys whatever their case, separators or prefix, and leaves token counts alone", () => {
    for (const key of [
      "apiKey",
      "API_KEY",
      "api-key",
      "accessToken",
      "x-auth-token",
      "dbPassword",
    ]) {
      expect(isSecretKey(key), key).toBe(true);
    }
    for (const key of [
      "inputTokens",
      "outputTokens",
      "city",
      "input",
      "output",
      "args",
      "result",
    ]) {
      expect(isSecretKey(key), key).toBe(false);
    }
  });
});
