import { describe, expect, it } from "vitest";
import { isSecretKey, REDACTED, redactSecretText } from "./redaction.js";

/**
 * Key names that hold secrets, spelt as apps and SDKs spell them (core cannot
 * use `@errand/testing`, whose list the other packages' tests share).
 */
const SECRET_KEY_SAMPLES = [
  "secretKey",
  "secret_key",
  "SECRET-KEY",
  "aws_secret_access_key",
  "apiKey",
  "api_key",
  "x-api-key",
  "token",
  "accessToken",
  "refresh_token",
  "password",
  "passwd",
  "db_pwd",
  "cookie",
  "Set-Cookie",
  "authorization",
  "Proxy-Authorization",
  "basicAuth",
  "client_secret",
  "privateKey",
  "credentials",
  "sessionId",
];

describe("isSecretKey", () => {
  it.each(SECRET_KEY_SAMPLES)("takes %s for a secret", (key) => {
    expect(isSecretKey(key)).toBe(true);
  });

  it.each([
    "input",
    "inputTokens",
    "maxTokens",
    "author",
    "runId",
    "question",
    "keyboard",
    "status",
  ])("takes %s for plain data", (key) => {
    expect(isSecretKey(key)).toBe(false);
  });
});

describe("redactSecretText", () => {
  it.each([
    [
      "request failed: Authorization: Bearer abc.def-123456",
      `request failed: Authorization: ${REDACTED} ${REDACTED}`,
    ],
    ["sent Bearer abcdefgh12345678", `sent Bearer ${REDACTED}`],
    ["bad key sk-proj-AbCdEf0123456789xyz rejected", `bad key ${REDACTED} rejected`],
    ["ghp_abcdefghijklmnopqrstuvwxyz0123 leaked", `${REDACTED} leaked`],
    ["login password=hunter2&user=ada", `login password=${REDACTED}&user=ada`],
    ["config api_key: 'abc123' region: eu", `config api_key: '${REDACTED}' region: eu`],
    ['{"secretKey":"s3cr3t","ok":true}', `{"secretKey":"${REDACTED}","ok":true}`],
    ['{"msg":"body {\\"passwd\\":\\"pw\\"}"}', `{"msg":"body {\\"passwd\\":\\"${REDACTED}\\"}"}`],
    [
      "cannot reach redis://default:pa55w0rd@cache:6379/0",
      `cannot reach redis://default:${REDACTED}@cache:6379/0`,
    ],
    [
      "write redis://<user>:<password>@host:port, or redis://app:<s3cret>x@host",
      `write redis://<user>:<password>@host:port, or redis://app:${REDACTED}@host`,
    ],
    [
      "plain message with tokens: 42 and time 12:30",
      "plain message with tokens: 42 and time 12:30",
    ],
  ])("redacts %j", (text, redacted) => {
    expect(redactSecretText(text)).toBe(redacted);
  });

  it("hides a long unquoted value to its end", () => {
    const jwt = `eyJ${"a".repeat(600)}.${"b".repeat(300)}.${"c".repeat(43)}`;
    expect(redactSecretText(`token=${jwt}&next=1`)).toBe(`token=${REDACTED}&next=1`);
  });

  it("keeps a JSON line JSON", () => {
    const line = JSON.stringify({
      error: "token=abc password: 'x'",
      apiKey: "sk-abcdefghijklmnop1234",
    });
    expect(JSON.parse(redactSecretText(line))).toEqual({
      error: `token=${REDACTED} password: '${REDACTED}'`,
      apiKey: REDACTED,
    });
  });

  it("answers a long text of name characters without backtracking for long", () => {
    const text = `${"a.".repeat(200_000)} and ${"x".repeat(200_000)}`;
    expect(redactSecretText(text)).toBe(text);
  });
});
