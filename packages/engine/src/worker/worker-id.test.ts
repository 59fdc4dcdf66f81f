/**
 * A worker's id goes into every `run-started` it writes, which the append
 * takes unvalidated (marked checked): so the id is checked where it enters,
 * when the worker is created, before anything connects.
 */
import { defineAgent, scriptedModel } from "@errand/runtime";
import { describe, expect, it } from "vitest";
import { createLogger } from "../logger.js";
import { createWorker } from "./create-worker.js";

const agent = defineAgent({
  name: "echo",
  instructions: "Say hi.",
  model: scriptedModel(),
  script: [{ say: "hi" }],
});

describe("createWorker's workerId", () => {
  it.for([
    ["empty", "", "workerId is empty"],
    ["holding a lone surrogate", "w\ud800", "workerId contains a lone surrogate"],
  ] as const)(
    "is refused when %s, before connecting (invalid_spec)",
    async ([_label, workerId, why]) => {
      await expect(
        createWorker({
          // Nothing listens here: a worker that connected first would fail otherwise.
          connection: "redis://127.0.0.1:1",
          agents: [agent],
          workerId,
          logger: createLogger({ level: "silent" }),
        }),
      ).rejects.toMatchObject({ code: "invalid_spec", message: expect.stringContaining(why) });
    },
  );
});
