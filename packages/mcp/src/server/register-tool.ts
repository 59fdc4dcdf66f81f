/**
 * Registering one errand tool on an MCP server: its arguments checked by
 * zod (the SDK answers a malformed call itself), its annotations, and its
 * handler wrapped so that every answer is `tool-answer.ts`'s shape — a
 * value becomes one JSON text block, a thrown error an `isError` answer with
 * errand's code, `retryable` and the fix.
 */
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
import type {
  CallToolResult,
  ServerNotification,
  ServerRequest,
  ToolAnnotations,
} from "@modelcontextprotocol/sdk/types.js";
import type { z } from "zod";
import { answerOf, type ReportUnexpected, thrownAnswer } from "../results/tool-answer.js";

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

/** Registers `tool` on `server`. */
export function registerErrandTool<Args extends z.ZodObject>(
  server: McpServer,
  tool: ErrandTool<Args>,
  reportUnexpected: ReportUnexpected,
): void {
  server.registerTool(
    tool.name,
    {
      title: tool.title,
      description: tool.description,
      inputSchema: tool.args,
      annotations: { title: tool.title, ...tool.annotations },
    },
    // The SDK's callback type is generic over every schema kind; the arguments it passes are `tool.args`' output.
    (async (args: z.infer<Args>, extra: ToolExtra): Promise<CallToolResult> => {
      try {
        const value = await tool.run(args, extra);
        return isAnswer(value) ? value : answerOf(value);
      } catch (error) {
        return thrownAnswer(error, tool.name, reportUnexpected);
      }
    }) as never,
  );
}
