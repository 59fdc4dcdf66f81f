import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodeBase64Url, encodeBase64Url, encodeUtf8Base64Url } from "./base64url.js";
import { CURSOR_VERSION, decodeCursor, encodeCursor } from "./cursor.js";
import { ErrandError, isErrandError } from "./errors.js";

/** A JSON value exactly as it comes back from JSON (so -0 is already 0). */
const jsonValue = fc.jsonValue().map((value) => JSON.parse(JSON.stringify(value)) as unknown);

/** The `invalid_spec` message `decodeCursor(cursor)` throws, or a note that it did not throw one. */
function refusal(cursor: string): string {
  try {
    decodeCursor(cursor);
    return "decoded";
  } catch (error) {
    return isErrandError(error, "invalid_spec") ? error.message : `another error: ${String(error)}`;
  }
}

describe("base64url", () => {
  it("encodes bytes the way the standard codec does, and decodes them back", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
        const encoded = encodeBase64Url(bytes);
        // Node's Buffer is only an independent oracle here: core itself never uses it.
        expect(encoded).toBe(Buffer.from(bytes).toString("base64url"));
        expect(decodeBase64Url(encoded)).toEqual(bytes);
      }),
    );
  });

  it("decodes only canonical base64url", () => {
    const alphabet = fc.constantFrom(
      ..."ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_=+/ ",
    );
    fc.assert(
      fc.property(fc.string({ unit: alphabet, maxLength: 16 }), (text) => {
        const canonical =
          /^[A-Za-z0-9_-]*$/.test(text) &&
          text.length % 4 !== 1 &&
          Buffer.from(text, "base64url").toString("base64url") === text;
        expect(decodeBase64Url(text) !== undefined).toBe(canonical);
      }),
    );
    expect(decodeBase64Url("AB")).toBeUndefined(); // its last 4 bits are not zero
    expect(decodeBase64Url("AA")).toEqual(new Uint8Array([0]));
  });
});

describe("encodeCursor / decodeCursor", () => {
  it("round-trips any JSON sort key through a URL-safe cursor", () => {
    fc.assert(
      fc.property(fc.array(jsonValue, { maxLength: 5 }), (sortKey) => {
        const cursor = encodeCursor(sortKey);
        expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
        expect(encodeURIComponent(cursor)).toBe(cursor);
        expect(decodeCursor(cursor)).toStrictEqual(sortKey);
      }),
    );
  });

  it("writes different cursors for different sort keys", () => {
    expect(encodeCursor(["2024-01-01T00:00:00Z", "R1"])).not.toBe(
      encodeCursor(["2024-01-01T00:00:00Z", "R2"]),
    );
  });

  it.each([
    ["an empty string", "", "it is empty or not a string"],
    ["characters outside base64url", "abc+/=", "it is not base64url-encoded UTF-8"],
    ["a truncated cursor", "abcde", "it is not base64url-encoded UTF-8"],
    [
      "bytes that are not UTF-8",
      encodeBase64Url(new Uint8Array([0xff, 0xfe])),
      "it is not base64url-encoded UTF-8",
    ],
    ["text that is not JSON", encodeUtf8Base64Url("page 2"), "it does not hold JSON"],
    ["JSON that is not a cursor", encodeUtf8Base64Url("[1,2]"), "it is not an errand cursor"],
    [
      "a cursor of another version",
      encodeUtf8Base64Url('{"v":99,"k":[]}'),
      "it has version 99, which this version of errand cannot read",
    ],
    [
      "a cursor without a sort key",
      encodeUtf8Base64Url(`{"v":${CURSOR_VERSION},"k":{}}`),
      "it holds no sort key",
    ],
  ])("refuses %s with invalid_spec", (_label, cursor, why) => {
    expect(refusal(cursor)).toBe(
      `invalid cursor: ${why}; pass the nextCursor of the previous page unchanged, or omit the cursor to start from the first page`,
    );
  });

  it("never fails on garbage with anything but invalid_spec", () => {
    fc.assert(
      fc.property(fc.string(), (garbage) => {
        expect(refusal(garbage)).not.toMatch(/^another error/);
      }),
    );
  });

  it("refuses to encode a sort key that is not JSON", () => {
    expect(() => encodeCursor([new Date(0)])).toThrow(ErrandError);
    expect(() => encodeCursor([new Date(0)])).toThrow(
      "cannot encode a cursor: the sort key[0] is a Date, which is not JSON; write it as an ISO-8601 string",
    );
  });
});
