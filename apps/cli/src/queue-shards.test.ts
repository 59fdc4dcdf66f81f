import { isErrandError } from "@errand/core";
import { describe, expect, it } from "vitest";
import { parseCommandArgs } from "./args.js";
import { workerCommand } from "./commands/worker.js";
import type { CliIO } from "./io.js";
import { QUEUE_SHARDS_VARIABLE, queueShardsOption } from "./queue-shards.js";

function ioWith(env: Record<string, string>): CliIO {
  return { stdout: process.stdout, stderr: process.stderr, env, cwd: process.cwd() };
}

const parse = (...argv: string[]) => parseCommandArgs("worker", workerCommand, argv);

function refusal(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe("queueShardsOption", () => {
  it("takes --queue-shards, else the environment, else leaves the engine's default; --take-queue-shards as a list", () => {
    expect(queueShardsOption(parse("--queue-shards", "3"), ioWith({}))).toEqual({ queueShards: 3 });
    expect(queueShardsOption(parse(), ioWith({ [QUEUE_SHARDS_VARIABLE]: "4" }))).toEqual({
      queueShards: 4,
    });
    expect(
      queueShardsOption(parse("--queue-shards", "2"), ioWith({ [QUEUE_SHARDS_VARIABLE]: "4" })),
    ).toEqual({ queueShards: 2 });
    expect(queueShardsOption(parse(), ioWith({}))).toEqual({});
    expect(
      queueShardsOption(parse("--queue-shards", "3", "--take-queue-shards", "0,2"), ioWith({})),
    ).toEqual({ queueShards: 3, takeQueueShards: [0, 2] });
  });

  it("refuses a count out of range and a shard the queue lacks, as usage errors", () => {
    for (const argv of [
      ["--queue-shards", "0"],
      ["--queue-shards", "65"],
      ["--queue-shards", "two"],
      ["--queue-shards", "3", "--take-queue-shards", "3"],
      ["--take-queue-shards", "1"],
    ]) {
      const error = refusal(() => queueShardsOption(parse(...argv), ioWith({})));
      expect(isErrandError(error, "invalid_spec"), argv.join(" ")).toBe(true);
    }
  });
});
