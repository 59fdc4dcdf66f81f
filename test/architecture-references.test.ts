/**
 * The design lives in the repository: every citation of it in code and docs
 * — `docs/architecture/<file>.md`, or `docs/architecture/<file>.md#<anchor>`
 * with the GitHub slug of one of that file's headings — names a file of
 * docs/architecture/ and a heading it has. The one-page document and its
 * `§N` citations are gone; none may come back.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { headingAnchors } from "./support/markdown.js";

const REPO_ROOT = fileURLToPath(new URL("..", import.meta.url));
const ARCHITECTURE = "docs/architecture";

/** A citation: `docs/architecture/<file>.md`, then `#<anchor>` when it names a heading. */
const CITATION = /docs\/architecture\/([a-z0-9-]+\.md)(?:#([a-z0-9-]+))?/g;

/** The old forms: the one-page document, and `architecture §N`. */
const OLD_CITATION = new RegExp(
  ["docs/architecture\\.md", "architecture(?:\\.md)? §\\d"].join("|"),
  "g",
);

/** The citations in `text`: the file, and the anchor when one is named. */
function citationsIn(text: string): { file: string; anchor?: string }[] {
  return [...text.matchAll(CITATION)].map((match) => ({
    file: match[1]!,
    ...(match[2] === undefined ? {} : { anchor: match[2] }),
  }));
}

/** The files git tracks that may cite the design: code, Lua, Markdown, manifests. */
function citingFiles(): string[] {
  return execFileSync("git", ["ls-files"], { cwd: REPO_ROOT, encoding: "utf8" })
    .split("\n")
    .filter((file) => /\.(ts|mjs|js|lua|md|ya?ml)$/.test(file));
}

function read(file: string): string {
  return readFileSync(join(REPO_ROOT, file), "utf8");
}

describe(ARCHITECTURE, () => {
  it("has every file and heading the code and docs cite", () => {
    const cited = citingFiles().flatMap((where) =>
      citationsIn(read(where)).map((citation) => ({ where, ...citation })),
    );
    expect(cited.length).toBeGreaterThan(100);
    const anchorsOf = new Map<string, Set<string>>();
    const unresolved = cited.filter(({ file, anchor }) => {
      const path = `${ARCHITECTURE}/${file}`;
      if (!existsSync(join(REPO_ROOT, path))) return true;
      if (anchor === undefined) return false;
      if (!anchorsOf.has(file)) anchorsOf.set(file, headingAnchors(read(path)));
      return !anchorsOf.get(file)!.has(anchor);
    });
    expect(unresolved).toEqual([]);
  });

  it("is cited in no older form", () => {
    const self = "test/architecture-references.test.ts";
    const old = citingFiles()
      .filter((file) => file !== self)
      .flatMap((file) =>
        [...read(file).matchAll(OLD_CITATION)].map((match) => `${file}: ${match[0]}`),
      );
    expect(old).toEqual([]);
  });

  it("reads a citation with and without an anchor, in code and in a link", () => {
    const text = [
      " * the fence (docs/architecture/worker.md#job-locks), and docs/architecture/events.md;",
      "[flow control](../../docs/architecture/flow-control.md#flow-control), docs/architecture.md §7",
    ].join("\n");
    expect(citationsIn(text)).toEqual([
      { file: "worker.md", anchor: "job-locks" },
      { file: "events.md" },
      { file: "flow-control.md", anchor: "flow-control" },
    ]);
    expect(text.match(OLD_CITATION)).toEqual(["docs/architecture.md"]);
  });

  it("resolves anchors as GitHub's heading slugs", () => {
    const anchors = headingAnchors(
      "# Worker\n\n## Job locks\n\n```md\n## Not a heading\n```\n\n## The live channel (streaming)\n\n## Job locks\n",
    );
    expect([...anchors]).toEqual([
      "worker",
      "job-locks",
      "the-live-channel-streaming",
      "job-locks-1",
    ]);
  });
});
