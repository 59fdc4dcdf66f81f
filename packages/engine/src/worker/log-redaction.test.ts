/**
 * A worker's log lines never carry a secret: a tool that fails with a message
 * quoting credentials (a bearer token, an `sk-…` key, `password=…`, a URL's
 * password) is logged with them hidden, and a run's input is not logged at
 * all. The worker runs in process, its lines captured as pino writes them.
 */
import { foldRun, settleRun } from "@errand/core";
import { defineAgent, defineTool, scriptedModel } from "@errand/runtime";
import { describe, expect } from "vitest";
import { z } from "zod";
import { engineTest } from "../test-support/engine-test.js";
import { captureLogs } from "../test-support/log-capture.js";
import { createWorker } from "./create-worker.js";

const it = engineTest("log-redaction");

const SECRETS = [
  "tok3n-abcdefgh",
  "sk-live0123456789abcdefXYZ",
  "hunter2",
  "pa55w0rd",
  "in-the-input",
];

const leakyTool = defineTool({
  name: "fetch_report",
  description: "Fails the way an HTTP client does: quoting the request it made.",
  parameters: z.object({ apiKey: z.string() }),
  handler: () => {
    throw new Error(
      `upstream answered 401 to Authorization: Bearer ${SECRETS[0]} (key ${SECRETS[1]}); retry with password=${SECRETS[2]} via redis://ops:${SECRETS[3]}@cache:6379`,
    );
  },
});

describe("a worker's log lines", () => {
  it("hide the secrets a failing tool's message quotes, and the run's input", async ({ fx }) => {
    const logs = captureLogs();
    const agent = defineAgent({
      name: "leaky",
      instructions: "Call fetch_report, then say done.",
      model: scriptedModel(),
      script: [{ call: [{ tool: "fetch_report", args: { apiKey: "k" } }] }, { say: "done" }],
      tools: [leakyTool],
    });
    const worker = await createWorker({
      connection: fx.server.url,
      prefix: fx.prefix,
      agents: [agent],
      logger: logs.logger,
    });
    try {
      const { runId } = await fx.errand.fire({
        agent: "leaky",
        input: { question: "report?", secretKey: SECRETS[4] },
      });
      const events = await fx.waitForEvent(runId);
      expect(settleRun(foldRun(events))).toMatchObject({ status: "succeeded", text: "done" });

      const failed = await logs.waitFor(
        (line) => line.msg === "tool failed" && line.runId === runId,
      );
      expect(failed.error).toBe(
        "upstream answered 401 to Authorization: [redacted] [redacted] (key [redacted]); retry with password=[redacted] via redis://ops:[redacted]@cache:6379",
      );
      for (const secret of SECRETS) expect(logs.text()).not.toContain(secret);
    } finally {
      await worker.close();
    }
  });
});
