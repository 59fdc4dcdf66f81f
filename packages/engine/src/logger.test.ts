/** The engine logger redacts inputs, outputs, tool arguments and results, and secrets. */

import { REDACTED } from "@errand/core";
import { SECRET_KEY_SAMPLES } from "@errand/testing";
import { describe, expect, it } from "vitest";
import { runLogger } from "./logger.js";
import { captureLogs } from "./test-support/log-capture.js";

describe("createLogger", () => {
  it("redacts run data and secrets at any depth, and keeps the rest", () => {
    const logs = captureLogs();
    logs.logger.info(
      {
        input: { question: "private" },
        output: { answer: "private" },
        args: { q: "private" },
        result: "private",
        apiKey: "private-key",
        request: { authorization: "private auth", url: "https://example.test" },
        deep: { list: [{ nested: { result: "private" } }] },
        step: 3,
      },
      "a line",
    );
    expect(logs.lines).toEqual([
      expect.objectContaining({
        msg: "a line",
        input: REDACTED,
        output: REDACTED,
        args: REDACTED,
        result: REDACTED,
        apiKey: REDACTED,
        request: { authorization: REDACTED, url: "https://example.test" },
        deep: { list: [{ nested: { result: REDACTED } }] },
        step: 3,
      }),
    ]);
    expect(logs.text()).not.toContain("private");
  });

  it.each(SECRET_KEY_SAMPLES)("redacts %s, at the top level and deep down", (key) => {
    const logs = captureLogs();
    logs.logger.warn({ [key]: "s3cr3t-value", config: { inner: [{ [key]: "s3cr3t-value" }] } });
    expect(logs.lines[0]).toMatchObject({
      [key]: REDACTED,
      config: { inner: [{ [key]: REDACTED }] },
    });
    expect(logs.text()).not.toContain("s3cr3t");
  });

  it("redacts secrets written in the text of a line, messages and errors included", () => {
    const logs = captureLogs();
    logs.logger.warn(
      { error: "call failed: password=hunter2 and Bearer abcdefgh12345678" },
      "retrying with sk-abcdefghijklmnop0123",
    );
    logs.logger.error(new Error("cannot reach redis://default:pa55w0rd@cache:6379"));
    expect(logs.lines[0]).toMatchObject({
      error: `call failed: password=${REDACTED} and Bearer ${REDACTED}`,
      msg: `retrying with ${REDACTED}`,
    });
    expect(logs.lines[1]).toMatchObject({
      msg: `cannot reach redis://default:${REDACTED}@cache:6379`,
    });
    for (const secret of ["hunter2", "abcdefgh12345678", "sk-abcdefghijklmnop0123", "pa55w0rd"]) {
      expect(logs.text()).not.toContain(secret);
    }
  });

  it("binds a run's runId, agent and attempt to each line of its child logger", () => {
    const logs = captureLogs();
    runLogger(logs.logger, { runId: "R1", agent: "helper", attempt: 2 }).warn({ seq: 4 }, "hm");
    expect(logs.lines[0]).toMatchObject({ runId: "R1", agent: "helper", attempt: 2, seq: 4 });
  });
});
