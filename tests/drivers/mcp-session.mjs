// mcp-session: a session of the MCP TypeScript SDK's client (v1) with a stdio server started by
// the given command (through acp-tap, in the tests): initialize and initialized, ping, the lists
// of tools, resources and prompts, a call of the echo tool, then the end of the session. Prints
// the tool's answer. Usage: node mcp-session.mjs COMMAND [ARG]...
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [command, ...args] = process.argv.slice(2);
const transport = new StdioClientTransport({ command, args, stderr: "inherit" });
const client = new Client({ name: "acp-tools-tests", version: "1.0.0" });
await client.connect(transport);
await client.ping();
await client.listTools();
await client.listResources();
await client.listPrompts();
const answer = await client.callTool({ name: "echo", arguments: { message: "hi" } });
console.log(JSON.stringify(answer.content));
await client.close();
