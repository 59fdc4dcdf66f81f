/**
 * The one vitest preset of the workspace's projects (each package's and
 * app's `vitest.config.ts`, and `test/`'s): workspace packages resolve to
 * their TypeScript sources through the `@errand/source` export condition, so
 * tests need no build step; a project's tests are its `src/**\/*.test.ts`;
 * a hook may take 30 s and a test 60 s (tests start Redis servers and
 * processes of their own, on a machine others share).
 */
import { defineProject, type UserWorkspaceConfig } from "vitest/config";

/** The export condition that resolves workspace packages to their sources. */
export const SOURCE_CONDITIONS = ["@errand/source"];

/** The settings a project may give beside the preset's, or instead of them. */
type ProjectTestSettings = NonNullable<UserWorkspaceConfig["test"]>;

/** A project's vitest configuration: the preset, with `test` over its settings. */
export function defineErrandProject(test: ProjectTestSettings = {}): UserWorkspaceConfig {
  return defineProject({
    resolve: { conditions: SOURCE_CONDITIONS },
    ssr: { resolve: { conditions: SOURCE_CONDITIONS } },
    test: {
      include: ["src/**/*.test.ts"],
      hookTimeout: 30_000,
      testTimeout: 60_000,
      ...test,
    },
  });
}
