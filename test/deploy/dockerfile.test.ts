/**
 * `infra/Dockerfile`. No Docker daemon runs where the tests run, so the image
 * is not built here; what can be checked without one is: a build stage and
 * a run stage, a non-root user, Node under tini with the CLI as entry point,
 * the files it copies exist (and are not kept out by `.dockerignore`), and
 * the pnpm it installs is the repository's.
 */
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { beforeAll, describe, expect, it } from "vitest";
import { repoPath } from "./infra-files.js";

/** One instruction: its keyword (upper case) and the rest of its line(s). */
interface Instruction {
  keyword: string;
  rest: string;
}

/** The instructions of a Dockerfile: comments dropped, `\` continuations joined. */
function parseDockerfile(text: string): Instruction[] {
  const logical = text
    .split("\n")
    .filter((line) => !line.trimStart().startsWith("#"))
    .join("\n")
    .replace(/\\\n/g, " ");
  return logical
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "")
    .map((line) => {
      const [keyword = "", ...rest] = line.split(/\s+/);
      return { keyword: keyword.toUpperCase(), rest: rest.join(" ") };
    });
}

/** The instructions of each stage, from its FROM on. */
function stagesOf(instructions: Instruction[]): Instruction[][] {
  const stages: Instruction[][] = [];
  for (const instruction of instructions) {
    if (instruction.keyword === "FROM") stages.push([]);
    stages.at(-1)?.push(instruction);
  }
  return stages;
}

let instructions: Instruction[];
let stages: Instruction[][];

beforeAll(async () => {
  instructions = parseDockerfile(await readFile(repoPath("infra", "Dockerfile"), "utf8"));
  stages = stagesOf(instructions);
});

const runStage = () => stages.at(-1) ?? [];
const last = (stage: Instruction[], keyword: string) =>
  stage.filter((instruction) => instruction.keyword === keyword).at(-1);

describe("infra/Dockerfile", () => {
  it("builds in one stage and runs in another, which copies only the deployed CLI", () => {
    expect(stages.length).toBe(2);
    expect(stages[0]?.[0]?.rest).toMatch(/ AS build$/);
    const build = stages[0] ?? [];
    expect(build.map((i) => i.rest)).toContain("pnpm --filter @errand/cli deploy --prod /app");
    const copies = runStage().filter((i) => i.keyword === "COPY");
    expect(copies.map((i) => i.rest)).toEqual(["--from=build /app /app"]);
  });

  it("runs as a user that is not root", () => {
    const user = last(runStage(), "USER")?.rest;
    expect(user).toBeDefined();
    expect(["root", "0"]).not.toContain(user?.split(":")[0]);
  });

  it("starts Node under tini with the CLI's entry point, and takes errand's command as CMD", async () => {
    const entrypoint = JSON.parse(last(runStage(), "ENTRYPOINT")?.rest ?? "null");
    expect(entrypoint).toEqual(["/usr/bin/tini", "--", "node", "/app/dist/main.js"]);
    const installs = runStage()
      .filter((i) => i.keyword === "RUN")
      .map((i) => i.rest);
    expect(installs.some((run) => /apt-get install .*\btini\b/.test(run))).toBe(true);
    const cli = JSON.parse(await readFile(repoPath("apps", "cli", "package.json"), "utf8"));
    expect(`/app/${cli.bin.errand.replace(/^\.\//, "")}`).toBe(entrypoint[3]);
    expect(Array.isArray(JSON.parse(last(runStage(), "CMD")?.rest ?? "null"))).toBe(true);
  });

  it("copies files that exist and that .dockerignore lets through", async () => {
    const ignored = (await readFile(repoPath(".dockerignore"), "utf8"))
      .split("\n")
      .filter((line) => line.trim() !== "" && !line.startsWith("#"));
    const sources = instructions
      .filter((i) => i.keyword === "COPY" && !i.rest.startsWith("--from"))
      .flatMap((i) => i.rest.split(/\s+/).slice(0, -1));
    expect(sources.length).toBeGreaterThan(0);
    for (const source of sources) {
      expect(existsSync(repoPath(source)), source).toBe(true);
      expect(ignored, source).not.toContain(source.replace(/\/$/, ""));
    }
    // The workspace the build installs: every package.json pnpm's workspace names.
    for (const folder of ["packages", "apps", "test/package.json"]) {
      expect(
        sources.some((source) => source.startsWith(folder)),
        folder,
      ).toBe(true);
    }
  });

  it("installs the pnpm the repository pins", async () => {
    const root = JSON.parse(await readFile(repoPath("package.json"), "utf8"));
    const pinned = String(root.packageManager);
    const run = instructions.find((i) => i.keyword === "RUN" && i.rest.includes(" pnpm@"));
    expect(run?.rest).toContain(pinned);
  });
});
