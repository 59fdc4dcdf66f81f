/**
 * The OpenAPI document of `/v1` is generated, never written by hand: the
 * committed `docs/reference/openapi.json` must be what the routes' schemas
 * generate now, the typed client the tests call the API with
 * (`test-support/openapi-types.ts`, from openapi-typescript) must be what
 * that document generates now, and `@redocly/cli lint` must pass on it.
 * (`typescript` 5 is a devDependency of this package only because
 * openapi-typescript needs its API; builds use the workspace's TypeScript.)
 */
import { execFile, execFileSync } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { openApiDocument } from "./openapi-document.js";

const run = promisify(execFile);
const PACKAGE_DIR = fileURLToPath(new URL("..", import.meta.url));
const DOCUMENT = fileURLToPath(new URL("../../../docs/reference/openapi.json", import.meta.url));
const TYPES = fileURLToPath(new URL("./test-support/openapi-types.ts", import.meta.url));
const bin = (name: string) => join(PACKAGE_DIR, "node_modules", ".bin", name);
const BIOME = join(PACKAGE_DIR, "..", "..", "node_modules", ".bin", "biome");

describe("the OpenAPI document", () => {
  const scratch = mkdtemp(join(tmpdir(), "errand-openapi-"));
  afterAll(async () => rm(await scratch, { recursive: true, force: true }));

  it("committed under docs/reference is the one the routes' schemas generate", async () => {
    const committed = JSON.parse(await readFile(DOCUMENT, "utf8"));
    expect(
      committed,
      "docs/reference/openapi.json is stale: after a build, run `pnpm --filter @errand/api openapi`",
    ).toEqual(openApiDocument());
  });

  it("generates the typed client the tests use, as committed (formatted by Biome)", async () => {
    const out = join(await scratch, "openapi-types.ts");
    await run(bin("openapi-typescript"), [DOCUMENT, "-o", out], { cwd: PACKAGE_DIR });
    const formatted = execFileSync(
      BIOME,
      ["format", "--stdin-file-path=src/test-support/openapi-types.ts"],
      { cwd: PACKAGE_DIR, input: await readFile(out, "utf8"), encoding: "utf8" },
    );
    expect(
      await readFile(TYPES, "utf8"),
      "src/test-support/openapi-types.ts is stale: after a build, run `pnpm --filter @errand/api openapi`",
    ).toBe(formatted);
  });

  it("passes @redocly/cli lint with its recommended rules", async () => {
    const linted = await run(bin("redocly"), ["lint", "--format=stylish", DOCUMENT], {
      cwd: await scratch,
      env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" },
    }).catch((error: { stdout: string; stderr: string }) => error);
    expect(`${linted.stdout}${linted.stderr}`).toContain("Your API description is valid");
  });
});
