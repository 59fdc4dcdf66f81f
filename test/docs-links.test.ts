/**
 * Every relative link of every Markdown file git tracks resolves: its file
 * (or folder) exists, and its `#anchor` is the GitHub slug of a heading of
 * the Markdown file it points into (the same file for a bare `#anchor`).
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, join, normalize } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { headingAnchors, relativeLinks, trackedMarkdownFiles } from "./support/markdown.js";

const REPO_ROOT = fileURLToPath(new URL("..", import.meta.url));

const anchorsOf = new Map<string, Set<string>>();

/** The heading anchors of a Markdown file of the repository, read once. */
function anchors(file: string): Set<string> {
  if (!anchorsOf.has(file))
    anchorsOf.set(file, headingAnchors(readFileSync(join(REPO_ROOT, file), "utf8")));
  return anchorsOf.get(file)!;
}

/** Why the link `target` of `from` does not resolve, or undefined when it does. */
function brokenLink(from: string, target: string): string | undefined {
  const [path = "", anchor] = target.split("#", 2);
  const file = path === "" ? from : normalize(join(dirname(from), decodeURI(path)));
  if (file.startsWith("..")) return "points outside the repository";
  if (!existsSync(join(REPO_ROOT, file))) return `no file ${file}`;
  if (anchor === undefined || anchor === "") return undefined;
  if (!file.endsWith(".md") || statSync(join(REPO_ROOT, file)).isDirectory()) {
    return `an anchor into ${file}, which is not a Markdown file`;
  }
  return anchors(file).has(anchor) ? undefined : `${file} has no heading #${anchor}`;
}

describe("the links of the Markdown files", () => {
  it("all resolve: every file exists and every anchor names a heading", () => {
    const files = trackedMarkdownFiles(REPO_ROOT);
    expect(files.length).toBeGreaterThan(20);
    const broken = files.flatMap((from) =>
      relativeLinks(readFileSync(join(REPO_ROOT, from), "utf8")).flatMap(({ target, line }) => {
        const why = brokenLink(from, target);
        return why === undefined ? [] : [`${from}:${line} (${target}): ${why}`];
      }),
    );
    expect(broken).toEqual([]);
  });

  it("finds a broken link for what is missing, and none for what is there", () => {
    expect(brokenLink("README.md", "docs/guide/README.md")).toBeUndefined();
    expect(brokenLink("docs/guide/README.md", "../../README.md")).toBeUndefined();
    expect(brokenLink("docs/guide/README.md", "../../infra/")).toBeUndefined();
    expect(brokenLink("docs/guide/README.md", "no-such-page.md")).toBe(
      "no file docs/guide/no-such-page.md",
    );
    expect(brokenLink("docs/architecture/README.md", "worker.md#job-locks")).toBeUndefined();
    expect(brokenLink("docs/architecture/README.md", "worker.md#no-such-heading")).toBe(
      "docs/architecture/worker.md has no heading #no-such-heading",
    );
    expect(brokenLink("docs/architecture/worker.md", "#job-locks")).toBeUndefined();
    expect(brokenLink("README.md", "../elsewhere.md")).toBe("points outside the repository");
  });

  it("reads links outside code only, and leaves web addresses alone", () => {
    const markdown = [
      "See [the guide](docs/guide/README.md) and [OpenTelemetry](https://opentelemetry.io/).",
      "`[not a link](nowhere.md)`",
      "```md",
      "[in a fence](nowhere.md)",
      "```",
      "![a picture](docs/picture.png) and [an anchor](#quick-start).",
    ].join("\n");
    expect(relativeLinks(markdown)).toEqual([
      { target: "docs/guide/README.md", line: 1 },
      { target: "docs/picture.png", line: 6 },
      { target: "#quick-start", line: 6 },
    ]);
  });
});
