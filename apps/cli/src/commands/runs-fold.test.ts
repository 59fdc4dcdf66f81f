import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { goldenFiles } from "../test-support/golden.js";
import { runErrand } from "../test-support/run-errand.js";

const histories = goldenFiles();
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "errand-cli-fold-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("errand runs fold --from-file", () => {
  it("finds the golden histories", () => {
    expect(histories.length).toBeGreaterThan(5);
  });

  it.concurrent.for(histories)(
    "prints the committed result of $name, byte for byte",
    async (history, { expect }) => {
      const committed = JSON.parse(await readFile(history.resultPath, "utf8"));
      const outcome = await runErrand(["runs", "fold", "--from-file", history.eventsPath]);
      expect(outcome.stderr).toBe("");
      expect(outcome.code).toBe(0);
      expect(outcome.stdout).toBe(`${JSON.stringify(committed)}\n`);
    },
  );

  it("resolves the path from the working directory", async () => {
    const [history] = histories;
    const events = await readFile(history!.eventsPath, "utf8");
    await writeFile(join(dir, "saved.json"), events);
    const outcome = await runErrand(["runs", "fold", "--from-file", "saved.json"], { cwd: dir });
    expect(outcome.code).toBe(0);
    expect(JSON.parse(outcome.stdout).runId).toBe(JSON.parse(events)[0].runId);
  });

  it("exits 1 and prints nothing on stdout for a log that has not settled", async () => {
    const [history] = histories;
    const events = JSON.parse(await readFile(history!.eventsPath, "utf8"));
    const path = join(dir, "unsettled.json");
    await writeFile(path, JSON.stringify(events.slice(0, 2)));
    const outcome = await runErrand(["runs", "fold", "--from-file", path]);
    expect(outcome.code).toBe(1);
    expect(outcome.stdout).toBe("");
    expect(outcome.stderr).toContain(`has not settled (last event: 2 ${events[1].type})`);
  });

  it.each([
    ["not JSON", "[{", /is not valid JSON/],
    ["not an array", '{"seq":1}', /must hold a JSON array of events/],
    [
      "an invalid event",
      '[{"v":1,"runId":"R1","seq":1,"type":"finished"}]',
      /event 1 is not a valid event/,
    ],
  ])("refuses a file that is %s with exit 2 and one line", async (_label, content, message) => {
    const path = join(dir, "bad.json");
    await writeFile(path, content);
    const outcome = await runErrand(["runs", "fold", "--from-file", path]);
    expect(outcome.code).toBe(2);
    expect(outcome.stdout).toBe("");
    expect(outcome.stderr).toMatch(message);
    expect(outcome.stderr.trimEnd().split("\n")).toHaveLength(1);
  });

  it("refuses a missing file and a missing --from-file with exit 2", async () => {
    const missing = await runErrand(["runs", "fold", "--from-file", join(dir, "nope.json")]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/cannot read/);
    const noOption = await runErrand(["runs", "fold"]);
    expect(noOption.code).toBe(2);
    expect(noOption.stderr).toMatch(/--from-file is required/);
  });
});
