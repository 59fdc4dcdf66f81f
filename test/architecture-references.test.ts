/**
 * The design lives in the repository: every `docs/architecture.md §N` (or
 * `§N.M`, item M of a numbered list in section N) cited in code and docs
 * names a section the document has.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const REPO_ROOT = fileURLToPath(new URL("..", import.meta.url));
const DOC = "docs/architecture.md";

/** Section number → the numbers of the items of its numbered lists. */
function sectionsOf(markdown: string): Map<string, Set<string>> {
  const sections = new Map<string, Set<string>>();
  let current: Set<string> | undefined;
  for (const line of markdown.split("\n")) {
    const heading = /^## (\d+)\. /.exec(line);
    if (heading) {
      current = new Set();
      sections.set(heading[1]!, current);
      continue;
    }
    const item = /^(\d+)\. /.exec(line);
    if (item && current) current.add(item[1]!);
  }
  return sections;
}

/** Every citation `docs/architecture.md §N[.M]` in the files git tracks, with where it is. */
function citations(): { where: string; section: string; item?: string }[] {
  const files = execFileSync("git", ["ls-files"], { cwd: REPO_ROOT, encoding: "utf8" })
    .split("\n")
    .filter((file) => /\.(ts|mjs|lua|md)$/.test(file));
  const found: { where: string; section: string; item?: string }[] = [];
  for (const file of files) {
    const text = readFileSync(join(REPO_ROOT, file), "utf8");
    for (const match of text.matchAll(/docs\/architecture\.md §(\d+)(?:\.(\d+))?/g)) {
      found.push({
        where: file,
        section: match[1]!,
        ...(match[2] === undefined ? {} : { item: match[2] }),
      });
    }
  }
  return found;
}

describe(DOC, () => {
  const sections = sectionsOf(readFileSync(join(REPO_ROOT, DOC), "utf8"));

  it("has its ten numbered sections", () => {
    expect([...sections.keys()]).toEqual(["1", "2", "3", "4", "5", "6", "7", "8", "9", "10"]);
  });

  it("has every section and item the code and docs cite", () => {
    const cited = citations();
    expect(cited.length).toBeGreaterThan(40);
    const unresolved = cited.filter(
      ({ section, item }) =>
        !sections.has(section) || (item !== undefined && !sections.get(section)!.has(item)),
    );
    expect(unresolved).toEqual([]);
  });

  it("finds a citation of a section it does not have", () => {
    expect(sectionsOf("## 1. One\n\n1. a\n").get("1")).toEqual(new Set(["1"]));
    expect(sectionsOf("## 1. One\n").has("2")).toBe(false);
  });
});
