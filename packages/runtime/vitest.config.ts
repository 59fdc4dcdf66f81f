import { defineProject } from "vitest/config";

export default defineProject({
  resolve: { conditions: ["@errand/source"] },
  ssr: { resolve: { conditions: ["@errand/source"] } },
  test: { include: ["src/**/*.test.ts"], hookTimeout: 30_000, testTimeout: 60_000 },
});
