import { describe, expect, it } from "vitest";
import { checkModel } from "./model-checks.js";

describe("the doctor's model check", () => {
  it("says the provider and model ERRAND_MODEL picks, and that its key is set", () => {
    expect(checkModel({ ERRAND_MODEL: "anthropic/claude-x", ANTHROPIC_API_KEY: "k" })).toEqual({
      name: "model",
      ok: true,
      detail: "anthropic, claude-x; ANTHROPIC_API_KEY set",
    });
    expect(
      checkModel({
        ERRAND_MODEL: "google/gemini-x",
        GOOGLE_GENERATIVE_AI_API_KEY: "k",
        GOOGLE_GENERATIVE_AI_BASE_URL: "http://127.0.0.1:1/v1beta",
      }),
    ).toMatchObject({
      ok: true,
      detail: "google, gemini-x at GOOGLE_GENERATIVE_AI_BASE_URL; GOOGLE_GENERATIVE_AI_API_KEY set",
    });
    expect(
      checkModel({ ERRAND_MODEL: "openai/gpt-x", OPENAI_BASE_URL: "http://x/v1" }),
    ).toMatchObject({
      ok: true,
      detail: "openai, gpt-x at OPENAI_BASE_URL; no key needed",
    });
  });

  it("names a key that is not set, with the fix", () => {
    expect(checkModel({ ERRAND_MODEL: "anthropic/claude-x", ANTHROPIC_API_KEY: " " })).toEqual({
      name: "model",
      ok: false,
      detail:
        "anthropic, claude-x; ANTHROPIC_API_KEY is not set, so a worker on it refuses to start",
      fix: "set ANTHROPIC_API_KEY to your anthropic API key",
    });
  });

  it("says the scripted model runs without ERRAND_MODEL or an OpenAI key", () => {
    expect(checkModel({})).toMatchObject({ ok: true, detail: expect.stringContaining("scripted") });
  });
});
