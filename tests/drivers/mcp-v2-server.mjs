// mcp-v2-server: a small stdio server on the TypeScript SDK's v2 (@modelcontextprotocol/server),
// for tests/mcp.bats: one tool, echo, which answers "Echo: " and its message. It serves both eras
// (serveStdio's factory: the opening exchange picks 2026-07-28 or a session of initialize).
import { McpServer, fromJsonSchema } from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";

const message = {
    type: "object",
    properties: { message: { type: "string" } },
    required: ["message"],
};
serveStdio(() => {
    const server = new McpServer({ name: "acp-tools-tests-v2", version: "1.0.0" });
    server.registerTool(
        "echo",
        { description: "Echoes its message", inputSchema: fromJsonSchema(message) },
        async ({ message }) => ({ content: [{ type: "text", text: `Echo: ${message}` }] }),
    );
    return server;
});
