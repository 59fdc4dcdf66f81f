/**
 * A real browser for the page's test: Debian's Chromium (`/usr/bin/chromium`,
 * which `.ci/run` installs), or the executable `ERRAND_CHROMIUM` names,
 * driven by `playwright-core`, headless, without
 * the sandbox, GPU or background networking, with a fresh profile removed
 * on close. Screenshots go to the package's `test-artifacts/`.
 * Test-only: not exported.
 */
import { accessSync, constants } from "node:fs";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type BrowserContext, chromium, type Page } from "playwright-core";

/** Where Debian installs Chromium. */
const CHROMIUM_PATH = "/usr/bin/chromium";

/** The variable naming another Chromium or Chrome executable. */
export const CHROMIUM_ENV = "ERRAND_CHROMIUM";

/**
 * The browser to drive: `ERRAND_CHROMIUM`, else {@link CHROMIUM_PATH}.
 * Throws, saying how to get one, when it is not an executable file.
 */
export function chromiumExecutable(env: NodeJS.ProcessEnv = process.env): string {
  const path = env[CHROMIUM_ENV] || CHROMIUM_PATH;
  try {
    accessSync(path, constants.X_OK);
    return path;
  } catch {
    throw new Error(
      `the dashboard's browser test needs Chromium, and ${path} is not an executable: install Debian's (apt-get install -y chromium), or set ${CHROMIUM_ENV} to a Chromium or Chrome executable`,
    );
  }
}

/** Where screenshots are saved: `<package>/test-artifacts`. */
const ARTIFACTS_DIR = fileURLToPath(new URL("../../test-artifacts/", import.meta.url));

const FLAGS = [
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/** A browser with one page. */
export interface BrowserSession {
  page: Page;
  /** Requests the page made, by URL. */
  requests: string[];
  /** Console errors and page errors. */
  errors: string[];
  /** Saves a full-page screenshot as `test-artifacts/<name>.png`; returns its path. */
  screenshot(name: string): Promise<string>;
  close(): Promise<void>;
}

/** Launches Chromium ({@link chromiumExecutable}) with a fresh profile. */
export async function launchBrowser(): Promise<BrowserSession> {
  const executablePath = chromiumExecutable();
  const userDataDir = await mkdtemp(join(tmpdir(), "errand-dashboard-chromium-"));
  await mkdir(ARTIFACTS_DIR, { recursive: true });
  let context: BrowserContext;
  try {
    context = await chromium.launchPersistentContext(userDataDir, {
      executablePath,
      headless: true,
      chromiumSandbox: false,
      args: FLAGS,
      viewport: { width: 1360, height: 900 },
    });
  } catch (error) {
    await rm(userDataDir, { recursive: true, force: true });
    throw error;
  }
  const page = context.pages()[0] ?? (await context.newPage());
  const requests: string[] = [];
  const errors: string[] = [];
  page.on("request", (request) => requests.push(request.url()));
  page.on("console", (message) => {
    if (message.type() === "error") errors.push(message.text());
  });
  page.on("pageerror", (error) => errors.push(error.message));
  return {
    page,
    requests,
    errors,
    async screenshot(name) {
      const path = join(ARTIFACTS_DIR, `${name}.png`);
      await page.screenshot({ path, fullPage: true });
      return path;
    },
    async close() {
      await context.close();
      await rm(userDataDir, { recursive: true, force: true });
    },
  };
}
