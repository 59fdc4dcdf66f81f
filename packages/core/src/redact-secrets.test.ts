import { describe, expect, it } from "vitest";
import { redactSecrets } from "./redact-secrets.js";
import { REDACTED } from "./redaction.js";

describe("redactSecrets", () => {
  it("hides secret values at any depth, in arrays too, and leaves the rest and the original alone", () => {
    const value = {
      question: "q",
      headers: [{ Authorization: "Bearer x", accept: "json" }],
      nested: { deeper: { aws_secret_access_key: "k", region: "eu" } },
      passwd: { even: "objects" },
    };
    const before = structuredClone(value);
    expect(redactSecrets(value)).toEqual({
      question: "q",
      headers: [{ Authorization: REDACTED, accept: "json" }],
      nested: { deeper: { aws_secret_access_key: REDACTED, region: "eu" } },
      passwd: REDACTED,
    });
    expect(value).toEqual(before);
  });

  it("hides the extra keys it is given, and walks a deep value without exhausting the stack", () => {
    expect(redactSecrets({ input: { a: 1 }, step: 2 }, { alsoKeys: ["input"] })).toEqual({
      input: REDACTED,
      step: 2,
    });
    let deep: unknown = { token: "t" };
    for (let i = 0; i < 50_000; i++) deep = [deep];
    let out = redactSecrets(deep);
    for (let i = 0; i < 50_000; i++) out = (out as unknown[])[0];
    expect(out).toEqual({ token: REDACTED });
  });

  it("keeps the order of keys, and a key named __proto__ as data", () => {
    const value = JSON.parse('{"b":1,"a":{"z":1,"y":2},"__proto__":{"token":"t"},"c":[3,2]}');
    const copy = redactSecrets(value) as Record<string, unknown>;
    expect(JSON.stringify(copy)).toBe(
      `{"b":1,"a":{"z":1,"y":2},"__proto__":{"token":"${REDACTED}"},"c":[3,2]}`,
    );
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
  });

  it("keeps values that are not plain objects or arrays as they are", () => {
    const error = new Error("boom");
    expect(redactSecrets({ error, at: 1 })).toEqual({ error, at: 1 });
  });

  it("hides the value of pairs whose name names a secret, as entries and as name/value objects", () => {
    expect(
      redactSecrets({
        headers: [
          ["Authorization", "Bearer abc"],
          ["accept", "json"],
        ],
        env: [
          { name: "apiKey", value: "k1" },
          { name: "region", value: "eu" },
        ],
        tags: [{ Key: "db_password", Value: { nested: "k2" } }],
        argv: ["--password", "k3"],
      }),
    ).toEqual({
      headers: [
        ["Authorization", REDACTED],
        ["accept", "json"],
      ],
      env: [
        { name: "apiKey", value: REDACTED },
        { name: "region", value: "eu" },
      ],
      tags: [{ Key: "db_password", Value: REDACTED }],
      argv: ["--password", REDACTED],
    });
  });

  it("takes a sentence for text, not for the name of a pair", () => {
    expect(redactSecrets(["reset your password", "here"])).toEqual(["reset your password", "here"]);
  });

  it("redacts JSON held as text by the same rules, and keeps text without secrets as it was", () => {
    const text = JSON.stringify({ apiKey: "k1", pairs: [["token", "k2"]], ok: true });
    expect(JSON.parse(redactSecrets(text))).toEqual({
      apiKey: REDACTED,
      pairs: [["token", REDACTED]],
      ok: true,
    });
    const plain = '{\n  "a": 1\n}';
    expect(redactSecrets(plain)).toBe(plain);
  });

  it("redacts secrets in free text, error messages included", () => {
    expect(
      redactSecrets({ error: { message: "refused: Authorization: Bearer abcdefgh12345678" } }),
    ).toEqual({ error: { message: `refused: Authorization: ${REDACTED} ${REDACTED}` } });
  });

  it("hides JSON text holding a secret whole when it cannot be written back", () => {
    const deep = `${"[".repeat(20_000)}{"token":"k"}${"]".repeat(20_000)}`;
    expect(redactSecrets(deep)).toBe(REDACTED);
  });
});
