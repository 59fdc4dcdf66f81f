import { describe, expect, it } from "vitest";
import { COMMANDS } from "./commands/index.js";
import { runErrand } from "./test-support/run-errand.js";

describe.concurrent("errand --help", () => {
  it("lists every command and the exit codes", async ({ expect }) => {
    const outcome = await runErrand(["--help"]);
    expect(outcome.code).toBe(0);
    for (const command of COMMANDS) expect(outcome.stdout).toContain(command.name);
    expect(outcome.stdout).toMatch(/Exit codes:[\s\S]*2 {2}usage/);
  });

  it.for(COMMANDS.map((command) => command.name))("errand %s --help", async (name, { expect }) => {
    const outcome = await runErrand([...name.split(" "), "--help"]);
    expect(outcome.stderr).toBe("");
    expect(outcome.code).toBe(0);
    expect(outcome.stdout).toMatch(new RegExp(`^Usage: errand ${name}`));
    expect(outcome.stdout).toContain("--help");
    expect(outcome.stdout).toContain("Exit codes:");
  });

  it("marks a repeatable option and says --timeout needs --wait in `errand fire --help`", async ({
    expect,
  }) => {
    const outcome = await runErrand(["fire", "--help"]);
    expect(outcome.stdout).toMatch(/^ {2}--metadata <key=value> +.+ \(repeatable\)$/m);
    expect(outcome.stdout).toMatch(/^ {2}--deadline <seconds> +/m);
    expect(outcome.stdout).toMatch(/^ {2}--timeout <seconds> +.*needs --wait$/m);
  });

  it("lists the runs commands for `errand runs --help`", async ({ expect }) => {
    const outcome = await runErrand(["runs", "--help"]);
    expect(outcome.code).toBe(0);
    for (const sub of ["list", "show", "tree", "events", "tail", "cancel", "fold"]) {
      expect(outcome.stdout).toContain(`runs ${sub}`);
    }
  });
});

describe.concurrent("usage errors", () => {
  it.for<[string[], RegExp]>([
    [[], /Usage: errand <command>/],
    [["launch"], /unknown command: launch/],
    [["runs", "rewind"], /unknown command: runs rewind/],
    [
      ["runs", "fold", "--form-file", "x.json"],
      /^errand: runs fold: unknown option --form-file \(see errand runs fold --help\)\n$/,
    ],
    [["runs", "show"], /runs show: missing <runId>/],
    [["runs", "show", "R1", "R2"], /unexpected argument "R2" \(see errand runs show --help\)/],
    [
      ["fire", "greeter", "Ada"],
      /^errand: fire: unexpected argument "Ada": give the run's input with --input, as JSON \(--input '"Ada"' for a text\) \(see errand fire --help\)\n$/,
    ],
    [["runs", "list", "--limit", "many"], /--limit must be a whole number from 1 to 500/],
  ])("errand %j exits 2", async ([args, message], { expect }) => {
    const outcome = await runErrand(args);
    expect(outcome.code).toBe(2);
    expect(outcome.stdout).toBe("");
    expect(outcome.stderr).toMatch(message);
  });
});

describe.concurrent("environment errors", () => {
  it("exits 3 saying how to give a Redis when none is given", async ({ expect }) => {
    const outcome = await runErrand(["runs", "list"]);
    expect(outcome.code).toBe(3);
    expect(outcome.stderr).toMatch(/no Redis given: set REDIS_URL/);
    expect(outcome.stderr.trimEnd().split("\n")).toHaveLength(1);
  });

  it("exits 3 when the Redis cannot be reached", async ({ expect }) => {
    // Port 1 on loopback: nothing listens there without root.
    const outcome = await runErrand(["runs", "list", "--redis", "redis://127.0.0.1:1"]);
    expect(outcome.code).toBe(3);
    expect(outcome.stderr).toMatch(/cannot reach Redis at redis:\/\/127\.0\.0\.1:1/);
  });
});

describe("errand --version", () => {
  it("prints the package version", async () => {
    const outcome = await runErrand(["--version"]);
    expect(outcome.code).toBe(0);
    expect(outcome.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
  });
});
