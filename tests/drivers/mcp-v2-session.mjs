// mcp-v2-session: a session of the TypeScript SDK's v2 client (@modelcontextprotocol/client) with
// a stdio server started by the given command (through acp-tap, in the tests): the list of tools
// and a call of echo, then the end of the session. Prints the tool's answer.
// Usage: node mcp-v2-session.mjs COMMAND [ARG]...
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";

const [command, ...args] = process.argv.slice(2);
const client = new Client({ name: "acp-tools-tests-v2", version: "1.0.0" });
await client.connect(new StdioClientTransport({ command, args, stderr: "inherit" }));
await client.listTools();
const answer = await client.callTool({ name: "echo", arguments: { message: "hi" } });
console.log(JSON.stringify(answer.content));
await client.close();
