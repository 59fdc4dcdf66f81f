import { describe, expect, it } from "vitest";
import { redactUrl } from "./redis.js";

describe("redactUrl", () => {
  it.each([
    ["redis://app:s3cret@db.internal:6379/0", "redis://app:[redacted]@db.internal:6379/0"],
    ["rediss://:s3cret@db.internal:6380", "rediss://:[redacted]@db.internal:6380"],
    [
      "redis://db.internal:6379/?username=app&password=s3cret&db=1",
      "redis://db.internal:6379/?username=app&password=[redacted]&db=1",
    ],
    ["redis://db.internal:6379?token=s3cret", "redis://db.internal:6379?token=[redacted]"],
    ["redis://errand-token:s3cret@db:6379", "redis://errand-token:[redacted]@db:6379"],
    ["redis://127.0.0.1:6379", "redis://127.0.0.1:6379"],
    [
      "redis+cluster://app:s3cret@10.0.0.1:7000,10.0.0.2:7000",
      "redis+cluster://app:[redacted]@10.0.0.1:7000,10.0.0.2:7000",
    ],
    ["rediss+cluster://:s3cret@db-a:7000", "rediss+cluster://:[redacted]@db-a:7000"],
    ["not a url, password=s3cret", "not a url, password=[redacted]"],
  ])("%s prints as %s", (url, printed) => {
    expect(redactUrl(url)).toBe(printed);
  });
});
