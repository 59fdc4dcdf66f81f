/**
 * docs/reference/cli.md against the `errand` command itself: the CLI is run
 * from its sources (`runCli`, the function `errand` calls), and every
 * command its `--help` lists, with the usage and every option its own
 * `--help` prints, has its section in the page — and the page names no
 * command or option the help does not have.
 */
import { readFileSync } from "node:fs";
import { runCli } from "@errand/cli";
import { describe, expect, it } from "vitest";

const CLI_REFERENCE = new URL("../docs/reference/cli.md", import.meta.url);

/** What `errand <args> --help` prints on stdout. */
async function help(args: readonly string[]): Promise<string> {
  let stdout = "";
  const stream = { write: (text: string) => (stdout += text) };
  const code = await runCli([...args, "--help"], {
    stdout: stream,
    stderr: stream,
    env: {},
    cwd: process.cwd(),
  });
  expect(code, stdout).toBe(0);
  return stdout;
}

/** The rows of the block of `help` that starts with `title` (`Commands:`, `Options:`): each row's first column. */
function helpRows(text: string, title: string): string[] {
  const block = text.split(`\n${title}\n`)[1]?.split("\n\n")[0] ?? "";
  return block.split("\n").map((row) => row.trim().split(/\s{2,}/)[0]!);
}

/** The long option names in `text`: `--status <status>` → `status`. */
function optionNames(text: string): string[] {
  return [...text.matchAll(/(?<![\w-])--([a-z][a-z-]*)/g)].map((match) => match[1]!);
}

/** The page's section of each command (`## \`errand runs list\``), by command name. */
function pageSections(markdown: string): Map<string, string> {
  const sections = new Map<string, string>();
  for (const part of markdown.split(/^## /m).slice(1)) {
    const name = /^`errand ([a-z ]+)`\n/.exec(part)?.[1];
    if (name !== undefined) sections.set(name, part);
  }
  return sections;
}

/** The options of a command's section in the page: the first cell of its options table's rows. */
function pageOptions(section: string): string[] {
  const rows = section.split("\n").filter((line) => /^\| `-/.test(line));
  return rows.flatMap((row) => optionNames(row.split(" | ")[0]!));
}

describe("docs/reference/cli.md", () => {
  const page = readFileSync(CLI_REFERENCE, "utf8");
  const sections = pageSections(page);

  it("has a section for every command errand --help lists, and for no other", async () => {
    const commands = helpRows(await help([]), "Commands:");
    expect(commands.length).toBeGreaterThan(10);
    expect([...sections.keys()]).toEqual(commands);
  });

  it("gives each command its usage and exactly the options its --help prints", async () => {
    for (const [name, section] of sections) {
      const text = await help(name.split(" "));
      const usage = /^Usage: (.*)$/m.exec(text)![1]!;
      expect(section, `errand ${name}`).toContain(`\n${usage}\n`);
      const options = helpRows(text, "Options:")
        .flatMap(optionNames)
        .filter((option) => option !== "help");
      expect(pageOptions(section).sort(), `errand ${name}`).toEqual(options.sort());
    }
  });

  it("reads options from a table row, a help row and a usage line alike", () => {
    expect(optionNames("| `--status <status>` | only runs in this status, not --x-y |")).toEqual([
      "status",
      "x-y",
    ]);
    expect(
      helpRows(
        "Usage: x\n\nOptions:\n  -h, --help  show this help\n  --json  JSON\n\nExit",
        "Options:",
      ),
    ).toEqual(["-h, --help", "--json"]);
    expect(pageOptions("| `--json` | print JSON |\n| `--limit <N>` | at most --max |")).toEqual([
      "json",
      "limit",
    ]);
  });
});
