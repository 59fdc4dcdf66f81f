/**
 * Properties of redaction on the way into the log: secrets planted in
 * generated shapes (nested objects, pairs as entries and as name/value
 * objects, JSON held as text, free text and error messages, next to long
 * strings that make the value cut anywhere, mid-secret included) never show
 * in what a tool result or an error leaves in the log, as every view reads
 * it (core's `redactSecrets`), nor in any cut of the redacted value.
 */
import { redactSecrets } from "@errand/core";
import { TOOL_TEXT_LIMIT_CHARS, truncateText } from "@errand/core/ops";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createMemoryBlobStore } from "./blobs.js";
import { failedToolResult, shapeToolResult } from "./tool-results.js";

const runId = "R01JTEST00000000000000000000";

/** Every planted secret is made of this letter and digits; nothing else generated holds it. */
const MARK = "Z";

const secret = fc.stringMatching(/^[0-9]{10,24}$/).map((digits) => `${MARK}${MARK}${digits}`);

/** Key names of secrets, spelt several ways. */
const secretKey = fc.constantFrom(
  "apiKey",
  "api_key",
  "x-api-key",
  "token",
  "accessToken",
  "password",
  "db_pwd",
  "Authorization",
  "client_secret",
  "Set-Cookie",
);

/** Text around secrets: lower-case words, never the mark. */
const filler = fc.stringMatching(/^[a-y ]{0,40}$/);
const plainKey = fc
  .stringMatching(/^[a-y]{1,12}$/)
  .filter((key) => !/tok|pw|auth|pass|sec/.test(key));

/** Long text that pushes what follows it across the tool text limit. */
const padding = fc
  .integer({ min: TOOL_TEXT_LIMIT_CHARS - 120, max: TOOL_TEXT_LIMIT_CHARS + 20 })
  .map((length) => "p".repeat(length));

/** Free text quoting a secret, as an error message or a log line would. */
const secretText = fc
  .tuple(filler, secretKey, secret, filler, fc.integer({ min: 0, max: 3 }))
  .map(([before, key, value, after, form]) => {
    const quoted = [
      `${key}=${value}`,
      `${key}: '${value}'`,
      `"${key}": "${value}"`,
      `Authorization: Bearer ${value}`,
    ][form];
    return `${before} ${quoted} ${after}`;
  });

/** A value holding secrets in every shape redaction knows. */
const withSecrets: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.tuple(secretKey, secret).map(([key, value]) => ({ [key]: value })),
    fc.tuple(secretKey, secret).map(([key, value]) => [key, value]),
    fc.tuple(secretKey, secret).map(([name, value]) => [{ name, value }]),
    fc.tuple(secretKey, tie("value")).map(([Key, Value]) => ({ Key, Value })),
    secretText,
    tie("value").map((inner) => JSON.stringify(inner)),
    fc.tuple(plainKey, tie("value"), padding).map(([key, inner, pad]) => ({ pad, [key]: inner })),
    fc
      .tuple(tie("value"), fc.array(fc.oneof(tie("value"), filler), { maxLength: 3 }), fc.nat())
      .map(([inner, others, at]) => others.toSpliced(at % (others.length + 1), 0, inner)),
    fc
      .tuple(plainKey, tie("value"), fc.dictionary(plainKey, filler, { maxKeys: 3 }))
      .map(([key, inner, others]) => ({ ...others, [key]: inner })),
  ),
})).value;

/** Text as a reader gets it: `value` through the views' redaction, as JSON. */
function shown(value: unknown): string {
  return JSON.stringify(redactSecrets(value)) ?? "";
}

describe("redaction before the cut", () => {
  it("leaves no secret in a tool result, whole or cut, JSON or text", async () => {
    await fc.assert(
      fc.asyncProperty(withSecrets, fc.boolean(), async (value, asText) => {
        const blobs = createMemoryBlobStore();
        const returned = asText ? JSON.stringify(value) : value;
        const shaped = await shapeToolResult(returned, runId, blobs);
        expect(shown(shaped)).not.toContain(MARK);
      }),
      { numRuns: 150 },
    );
  });

  it("leaves no secret in a failed call's error message, cut or not", () => {
    fc.assert(
      fc.property(fc.tuple(padding, secretText, fc.boolean()), ([pad, text, padFirst]) => {
        const message = padFirst ? `${pad}${text}` : `${text}${pad}`;
        expect(shown(failedToolResult(message))).not.toContain(MARK);
      }),
      { numRuns: 150 },
    );
  });

  it("leaves no secret in any cut of the redacted value", () => {
    fc.assert(
      fc.property(withSecrets, fc.nat(), (value, at) => {
        const text = shown(value);
        expect(truncateText(text, at % (text.length + 1)).text).not.toContain(MARK);
      }),
      { numRuns: 150 },
    );
  });

  it("finds the secrets it plants when nothing is redacted (the property can fail)", () => {
    fc.assert(
      fc.property(withSecrets, (value) => {
        expect(JSON.stringify(value)).toContain(MARK);
      }),
      { numRuns: 50 },
    );
  });
});
