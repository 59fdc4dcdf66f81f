/**
 * Reading Markdown the way GitHub renders it, for the docs tests: the
 * anchors of a file's headings (GitHub's slugs, with `-1`, `-2` for repeats),
 * its relative links, and its fenced code blocks with their info strings.
 * Fenced code is skipped when looking for headings and links.
 */
import { execFileSync } from "node:child_process";
import { readFile } from "node:fs/promises";
import { join } from "node:path";

/** The Markdown files git tracks, as paths relative to `root`. */
export function trackedMarkdownFiles(root: string): string[] {
  return execFileSync("git", ["ls-files", "*.md"], { cwd: root, encoding: "utf8" })
    .split("\n")
    .filter((file) => file.length > 0);
}

/** A fenced code block: its info string (```` ```js runnable ```` → `js runnable`), its text and the line it opens on. */
interface CodeBlock {
  info: string;
  code: string;
  line: number;
}

/** The lines of `markdown` outside fenced code, each with its 1-based number. */
function proseLines(markdown: string): { text: string; line: number }[] {
  const prose: { text: string; line: number }[] = [];
  let fence: string | undefined;
  markdown.split("\n").forEach((text, index) => {
    const marker = /^\s*(`{3,}|~{3,})/.exec(text)?.[1];
    if (fence === undefined && marker) fence = marker;
    else if (fence !== undefined && marker?.startsWith(fence)) fence = undefined;
    else if (fence === undefined) prose.push({ text, line: index + 1 });
  });
  return prose;
}

/** Every fenced code block of `markdown`, in order. */
function codeBlocks(markdown: string): CodeBlock[] {
  const blocks: CodeBlock[] = [];
  let open: { fence: string; info: string; line: number; lines: string[] } | undefined;
  markdown.split("\n").forEach((text, index) => {
    const marker = /^\s*(`{3,}|~{3,})(.*)$/.exec(text);
    if (open === undefined && marker) {
      open = { fence: marker[1]!, info: marker[2]!.trim(), line: index + 1, lines: [] };
    } else if (
      open !== undefined &&
      marker &&
      marker[1]!.startsWith(open.fence) &&
      marker[2]!.trim() === ""
    ) {
      blocks.push({ info: open.info, code: `${open.lines.join("\n")}\n`, line: open.line });
      open = undefined;
    } else open?.lines.push(text);
  });
  return blocks;
}

/** GitHub's slug of a heading's text: formatting dropped, lower case, punctuation removed, spaces to hyphens. */
function headingSlug(heading: string): string {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1") // links and images: their text
    .replace(/<[^>]+>/g, "") // inline HTML tags
    .replace(/[*`~]/g, ""); // emphasis and code marks
  return text
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");
}

/** The anchors GitHub gives the headings of `markdown`: a repeated slug gets `-1`, `-2`, … */
export function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const { text } of proseLines(markdown)) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(text);
    if (!heading) continue;
    const slug = headingSlug(heading[1]!);
    const repeats = seen.get(slug) ?? 0;
    seen.set(slug, repeats + 1);
    anchors.add(repeats === 0 ? slug : `${slug}-${repeats}`);
  }
  return anchors;
}

/** A link of a Markdown file: its target as written and the line it is on. */
export interface MarkdownLink {
  target: string;
  line: number;
}

/**
 * The inline links and images of `markdown` whose target is in the
 * repository (a relative path, or `#anchor` alone): web addresses and
 * `mailto:` are left out, and so is anything inside code.
 */
export function relativeLinks(markdown: string): MarkdownLink[] {
  const links: MarkdownLink[] = [];
  for (const { text, line } of proseLines(markdown)) {
    const prose = text.replace(/`[^`]*`/g, "");
    for (const match of prose.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
      const target = match[1]!;
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
      links.push({ target, line });
    }
  }
  return links;
}

/** A runnable block, with the output it promises when it promises one. */
export interface RunnableBlock {
  file: string;
  block: CodeBlock;
  output?: string;
}

/** The runnable blocks of `markdown`: info string `js runnable`, each with the `text output` block after it. */
export function runnableBlocks(file: string, markdown: string): RunnableBlock[] {
  const blocks = codeBlocks(markdown);
  return blocks.flatMap((block, index) => {
    if (block.info !== "js runnable") return [];
    const next = blocks[index + 1];
    return [{ file, block, ...(next?.info === "text output" ? { output: next.code } : {}) }];
  });
}

/** The runnable blocks of every Markdown file git tracks under `root`, in file order. */
export async function runnableBlocksOf(root: string): Promise<RunnableBlock[]> {
  const files = trackedMarkdownFiles(root);
  const texts = await Promise.all(files.map((file) => readFile(join(root, file), "utf8")));
  return files.flatMap((file, index) => runnableBlocks(file, texts[index]!));
}
