/**
 * The design lives in the repository: every citation of the document —
 * `docs/architecture.md §N`, `architecture §N`, a link to it then `§N` (or
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

/**
 * A citation of the document: `docs/architecture.md §N[.M]`, the short
 * `architecture §N`, a Markdown link to it followed by `§N`, each also when a
 * line break (and a comment's `*` or `//`) falls before the `§`.
 */
const CITATION = /\barchitecture(?:\.md)?(?:\]\([^)\s]*\))?(?:\s|\*|\/\/)*§(\d+)(?:\.(\d+))?/g;

/** The citations in `text`: the section, and the item when one is named. */
function citationsIn(text: string): { section: string; item?: string }[] {
  return [...text.matchAll(CITATION)].map((match) => ({
    section: match[1]!,
    ...(match[2] === undefined ? {} : { item: match[2] }),
  }));
}

/** Every citation of the document in the files git tracks, with where it is. */
function citations(): { where: string; section: string; item?: string }[] {
  const files = execFileSync("git", ["ls-files"], { cwd: REPO_ROOT, encoding: "utf8" })
    .split("\n")
    .filter((file) => /\.(ts|mjs|lua|md)$/.test(file));
  return files.flatMap((file) =>
    citationsIn(readFileSync(join(REPO_ROOT, file), "utf8")).map((cited) => ({
      where: file,
      ...cited,
    })),
  );
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

  it("reads a citation in each form the code and docs write it", () => {
    const text = [
      "see docs/architecture.md §6 and docs/architecture.md §4.2;",
      "the live channel (architecture §7), [architecture §8](docs/architecture.md#8-collector),",
      "[docs/architecture.md](docs/architecture.md) §9, and a comment's docs/architecture.md",
      " * §10, Budgets; RFC 4648 §5 is another document's.",
    ].join("\n");
    expect(citationsIn(text)).toEqual([
      { section: "6" },
      { section: "4", item: "2" },
      { section: "7" },
      { section: "8" },
      { section: "9" },
      { section: "10" },
    ]);
  });

  it("finds a citation of a section it does not have", () => {
    expect(sectionsOf("## 1. One\n\n1. a\n").get("1")).toEqual(new Set(["1"]));
    expect(sectionsOf("## 1. One\n").has("2")).toBe(false);
  });
});
