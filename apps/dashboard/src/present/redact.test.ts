import { REDACTED } from "@errand/engine";
import { describe, expect, it } from "vitest";
import { isSecretKey, redactSecrets } from "./redact.js";

describe("redactSecrets", () => {
  it("replaces the values of secret keys at any depth, in objects and arrays", () => {
    const value = {
      city: "Lyon",
      apiKey: "sk-1",
      nested: { deeper: [{ password: "hunter2", keep: 1 }], Authorization: "Bearer x" },
      list: [{ client_secret: { any: "shape" } }, "plain"],
    };
    expect(redactSecrets(value)).toEqual({
      city: "Lyon",
      apiKey: REDACTED,
      nested: { deeper: [{ password: REDACTED, keep: 1 }], Authorization: REDACTED },
      list: [{ client_secret: REDACTED }, "plain"],
    });
    expect(value.apiKey).toBe("sk-1");
  });

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

  it("returns scalars as they are", () => {
    expect(redactSecrets("token")).toBe("token");
    expect(redactSecrets(null)).toBeNull();
    expect(redactSecrets(3)).toBe(3);
  });
});
