// mcp-v2-session: a session of the TypeScript SDK's v2 client (@modelcontextprotocol/client) with
// a stdio server started by the given command (through acp-tap, in the tests): the list of tools
// and a call of echo, then the end of the session. Prints the tool's answer. MCP_ERA=auto makes it
// a client of both eras, which probes with server/discover first, and MCP_ERA=2026-07-28 one of
// that revision alone (versionNegotiation's mode; the SDK's default is legacy, initialize alone).
// Usage: [MCP_ERA=auto|2026-07-28] node mcp-v2-session.mjs COMMAND [ARG]...
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";

const [command, ...args] = process.argv.slice(2);

/* MCP_ERA: legacy (the SDK's default), auto, or 2026-07-28 (the client pinned to it). */
function era(name) {
    return name === "2026-07-28" ? { pin: name } : (name ?? "legacy");
}
const client = new Client(
    { name: "acp-tools-tests-v2", version: "1.0.0" },
    { versionNegotiation: { mode: era(process.env.MCP_ERA) } },
);
await client.connect(new StdioClientTransport({ command, args, stderr: "inherit" }));
await client.listTools();
const answer = await client.callTool({ name: "echo", arguments: { message: "hi" } });
console.log(JSON.stringify(answer.content));
await client.close();
