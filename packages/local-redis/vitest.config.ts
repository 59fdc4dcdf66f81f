import { defineProject } from "vitest/config";

export default defineProject({
  resolve: { conditions: ["@errand/source"] },
  ssr: { resolve: { conditions: ["@errand/source"] } },
  test: { include: ["src/**/*.test.ts"] },
});
