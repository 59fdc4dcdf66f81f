/**
 * Serving errand's tools on an MCP server: `tools/list` and `tools/call`
 * answered through the SDK's low-level `Server` (`McpServer.server`), so
 * that errand checks a call's arguments itself. A tool registered with
 * `McpServer.registerTool` has its arguments checked by the SDK, which
 * answers a mismatch with a line of its own text; here a mismatch is
 * errand's error answer like any other (`tool-answer.ts`): `invalid_spec`,
 * the message and `issues` naming each field, the fix, not retryable
 * (docs/architecture/mcp.md#answers). The list is what the SDK would list:
 * each tool's arguments as JSON Schema (draft 7, the input side of its zod
 * schema), its title, description and annotations, and that it runs as no
 * task.
 */
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
import {
  CallToolRequestSchema,
  type CallToolResult,
  ListToolsRequestSchema,
  type ServerNotification,
  type ServerRequest,
  type Tool,
  type ToolAnnotations,
} from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import {
  answerOf,
  invalidArgumentsAnswer,
  type ReportUnexpected,
  thrownAnswer,
  unknownToolAnswer,
} from "../results/tool-answer.js";

/** What a tool's handler is handed beside its arguments: the SDK's request context. */
export type ToolExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** One tool: its name, description, arguments, annotations and handler. */
export interface ErrandTool<Args extends z.ZodObject> {
  name: string;
  title: string;
  description: string;
  args: Args;
  annotations: ToolAnnotations;
  /** The answer's value, or a ready answer (an error answer of its own); throws an `ErrandError` to refuse. */
  run(args: z.infer<Args>, extra: ToolExtra): Promise<unknown>;
}

/** True for an answer already shaped (`{ content: [...] }`), which is sent as it is. */
function isAnswer(value: unknown): value is CallToolResult {
  return (
    typeof value === "object" &&
    value !== null &&
    Array.isArray((value as { content?: unknown }).content)
  );
}

/** `tool` as `tools/list` lists it. */
function listed(tool: ErrandTool<z.ZodObject>): Tool {
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: z.toJSONSchema(tool.args, {
      target: "draft-7",
      io: "input",
    }) as Tool["inputSchema"],
    annotations: { title: tool.title, ...tool.annotations },
    // No tool runs as an MCP task (docs/architecture/mcp.md#the-server).
    execution: { taskSupport: "forbidden" },
  };
}

/** `tool`'s answer to a call with `args`: its value, or errand's error answer. */
async function answerCall(
  tool: ErrandTool<z.ZodObject>,
  args: unknown,
  extra: ToolExtra,
  reportUnexpected: ReportUnexpected,
): Promise<CallToolResult> {
  const parsed = await tool.args.safeParseAsync(args ?? {});
  if (!parsed.success) return invalidArgumentsAnswer(tool.name, parsed.error.issues);
  try {
    const value = await tool.run(parsed.data, extra);
    return isAnswer(value) ? value : answerOf(value);
  } catch (error) {
    return thrownAnswer(error, tool.name, reportUnexpected);
  }
}

/** Serves `tools` on `server`; call before it connects (it declares the tools capability). */
export function registerErrandTools(
  server: McpServer,
  tools: readonly ErrandTool<z.ZodObject>[],
  reportUnexpected: ReportUnexpected,
): void {
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  const list = tools.map(listed);
  server.server.registerCapabilities({ tools: { listChanged: true } });
  server.server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: list }));
  server.server.setRequestHandler(CallToolRequestSchema, (request, extra) => {
    const tool = byName.get(request.params.name);
    if (tool === undefined) return unknownToolAnswer(request.params.name, [...byName.keys()]);
    return answerCall(tool, request.params.arguments, extra, reportUnexpected);
  });
}
