/** The engine logger redacts inputs, outputs, tool arguments and results, and secrets. */
import { describe, expect, it } from "vitest";
import { REDACTED, runLogger } from "./logger.js";
import { captureLogs } from "./test-support/log-capture.js";

describe("createLogger", () => {
  it("redacts sensitive fields at the top level and one level down, and keeps the rest", () => {
    const logs = captureLogs();
    logs.logger.info(
      {
        input: { question: "private" },
        output: { answer: "private" },
        args: { q: "private" },
        result: "private",
        apiKey: "sk-private",
        request: { authorization: "Bearer private", url: "https://example.test" },
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
        step: 3,
      }),
    ]);
    expect(logs.text()).not.toContain("private");
  });

  it("binds a run's runId, agent and attempt to each line of its child logger", () => {
    const logs = captureLogs();
    runLogger(logs.logger, { runId: "R1", agent: "helper", attempt: 2 }).warn({ seq: 4 }, "hm");
    expect(logs.lines[0]).toMatchObject({ runId: "R1", agent: "helper", attempt: 2, seq: 4 });
  });
});
