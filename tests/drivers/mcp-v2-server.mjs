// mcp-v2-server: a small stdio server on the TypeScript SDK's v2 (@modelcontextprotocol/server),
// for tests/mcp.bats: one tool, echo, which answers "Echo: " and its message.
import { McpServer, fromJsonSchema } from "@modelcontextprotocol/server";
import { StdioServerTransport } from "@modelcontextprotocol/server/stdio";

const server = new McpServer({ name: "acp-tools-tests-v2", version: "1.0.0" });
const message = {
    type: "object",
    properties: { message: { type: "string" } },
    required: ["message"],
};
server.registerTool(
    "echo",
    { description: "Echoes its message", inputSchema: fromJsonSchema(message) },
    async ({ message }) => ({ content: [{ type: "text", text: `Echo: ${message}` }] }),
);
await server.connect(new StdioServerTransport());
