import { describe, expect, it } from "vitest";
import {
  compileOutputSchema,
  isStructuredOutputTool,
  OUTPUT_RECORDED_MESSAGE,
  outputAlreadyRecordedMessage,
  structuredOutputToolSpec,
} from "./structured-output.js";

/** A schema using every construct of the strict subset: nullable unions, enum, const, anyOf, $defs/$ref recursion. */
const TREE_SCHEMA = {
  type: "object",
  properties: {
    title: { type: "string" },
    note: { anyOf: [{ type: "string" }, { type: "null" }] },
    count: { type: ["integer", "null"] },
    kind: { type: "string", enum: ["leaf", "branch"] },
    version: { const: 2 },
    flag: { type: "boolean" },
    root: { $ref: "#/$defs/node" },
  },
  required: ["title", "note", "count", "kind", "version", "flag", "root"],
  additionalProperties: false,
  $defs: {
    node: {
      type: "object",
      properties: {
        value: { type: "number" },
        children: { type: "array", items: { $ref: "#/$defs/node" } },
      },
      required: ["value", "children"],
      additionalProperties: false,
    },
  },
} as const;

const { flag: _flag, ...withoutFlag } = {
  title: "t",
  note: null,
  count: 3,
  kind: "leaf",
  version: 2,
  flag: false,
  root: { value: 1, children: [{ value: 2.5, children: [] }] },
};
const valid = { ...withoutFlag, flag: false };

describe("compileOutputSchema", () => {
  const validator = compileOutputSchema(TREE_SCHEMA);

  it("accepts a value that matches, and records it as sent", () => {
    expect(validator.check(valid)).toEqual({ ok: true, output: valid });
    expect(validator.check({ ...valid, note: "n", count: null })).toMatchObject({ ok: true });
  });

  it.each([
    ["a missing required property", withoutFlag, "flag: expected boolean, received undefined"],
    ["an extra property", { ...valid, extra: 1 }, '$: Unrecognized key: "extra"'],
    [
      "a value outside an enum",
      { ...valid, kind: "twig" },
      'kind: Invalid option: expected one of "leaf"|"branch"',
    ],
    ["a wrong const", { ...valid, version: 3 }, "version: expected 2"],
    [
      "a non-integer where integer|null is allowed",
      { ...valid, count: 1.5 },
      "count: matches none of the allowed alternatives: expected int, received number | expected null, received number",
    ],
    [
      "a wrong type in a nullable anyOf",
      { ...valid, note: 5 },
      "note: matches none of the allowed alternatives: expected string, received number | expected null, received number",
    ],
    [
      "a bad value deep in the recursion",
      { ...valid, root: { value: 1, children: [{ value: "x", children: [] }] } },
      "root.children[0].value: expected number, received string",
    ],
    [
      "an extra property deep in the recursion",
      { ...valid, root: { value: 1, children: [], more: true } },
      'root: Unrecognized key: "more"',
    ],
  ])("refuses %s, saying where and what", (_what, value, issue) => {
    const check = validator.check(value);
    expect(check.ok).toBe(false);
    expect(check.ok ? [] : check.issues).toContain(issue);
  });

  it("unwraps { data: … } when the unwrapped value matches", () => {
    expect(validator.check({ data: valid })).toEqual({ ok: true, output: valid });
    const check = validator.check({ data: { ...valid, kind: "twig" } });
    expect(check.ok).toBe(false);
  });

  it("refuses arguments that were not JSON", () => {
    expect(validator.check('{"title": ')).toEqual({
      ok: false,
      issues: ["$: the arguments are not valid JSON"],
    });
  });

  it("keeps each compiled schema to itself", () => {
    const a = compileOutputSchema({
      type: "object",
      properties: { a: { type: "string" } },
      required: ["a"],
      additionalProperties: false,
    });
    const b = compileOutputSchema({
      type: "object",
      properties: { b: { type: "number" } },
      required: ["b"],
      additionalProperties: false,
    });
    expect(a.check({ a: "x" }).ok).toBe(true);
    expect(a.check({ b: 1 }).ok).toBe(false);
    expect(b.check({ b: 1 }).ok).toBe(true);
    expect(b.check({ a: "x" }).ok).toBe(false);
  });

  it("compiles a schema once for every run that carries the very same one, and keeps the last 64", () => {
    const schemaOf = (field: string) => ({
      type: "object",
      properties: { [field]: { type: "string" } },
      required: [field],
      additionalProperties: false,
    });
    const first = compileOutputSchema(schemaOf("kept"));
    expect(compileOutputSchema(structuredClone(schemaOf("kept")))).toBe(first);
    expect(compileOutputSchema(schemaOf("other"))).not.toBe(first);

    for (let n = 0; n < 64; n += 1) compileOutputSchema(schemaOf(`field${n}`));
    const recompiled = compileOutputSchema(schemaOf("kept"));
    expect(recompiled).not.toBe(first);
    expect(recompiled.check({ kept: "x" }).ok).toBe(true);
    expect(recompiled.check({ other: "x" }).ok).toBe(false);
  });
});

describe("the structured-output tool", () => {
  it("is advertised as structured_output with the run's schema, strict", () => {
    const spec = structuredOutputToolSpec({ $schema: "x", ...TREE_SCHEMA });
    expect(spec.name).toBe("structured_output");
    expect(spec.strict).toBe(true);
    expect(spec.parameters).toEqual(TREE_SCHEMA);
  });

  it("answers to structured_output and to the set_output alias only", () => {
    expect(isStructuredOutputTool("structured_output")).toBe(true);
    expect(isStructuredOutputTool("set_output")).toBe(true);
    expect(isStructuredOutputTool("output")).toBe(false);
  });

  it("uses the exact messages of docs/architecture/structured-output.md", () => {
    expect(OUTPUT_RECORDED_MESSAGE).toBe("Structured output recorded.");
    expect(outputAlreadyRecordedMessage("search")).toBe(
      "Error: structured output already recorded: the run is complete, so search is not executed.",
    );
  });
});
