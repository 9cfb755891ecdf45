// mcp-lines: a client of raw lines, for what no SDK client sends. Starts the given command and
// writes it the JSON-RPC lines of its own standard input, one at a time: after a request it waits
// for the response with its id (3 s at most: a loaded machine starts node slowly), unless the line begins with "!", which is not
// waited for and goes in one write with the line after it (so that the command reads both
// before it answers either); a line "#wait" waits for the responses to those. Then it closes the
// command's input and waits for its end. Prints what the command wrote, a line each.
// Usage: node mcp-lines.mjs COMMAND... <LINES
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";

const [command, ...args] = process.argv.slice(2);
const child = spawn(command, args, { stdio: ["pipe", "pipe", "inherit"] });
const waiting = new Map(); // id -> resolve
createInterface({ input: child.stdout }).on("line", (line) => {
    console.log(line);
    let id;
    try {
        id = JSON.parse(line).id;
    } catch {
        return;
    }
    waiting.get(JSON.stringify(id))?.();
});
const ended = new Promise((resolve) => child.on("close", resolve));

const lines = [];
for await (const line of createInterface({ input: process.stdin })) lines.push(line);
let unawaited = [];
let together = "";
for (const line of lines) {
    if (line === "#wait") {
        await Promise.all(unawaited);
        unawaited = [];
        continue;
    }
    const now = line.startsWith("!");
    const text = now ? line.slice(1) : line;
    const message = JSON.parse(text);
    const request = message.id !== undefined && message.method !== undefined;
    const answered =
        request &&
        new Promise((resolve) => {
            waiting.set(JSON.stringify(message.id), resolve);
            setTimeout(resolve, 3000).unref();
        });
    if (now) together += text + "\n";
    else child.stdin.write(together + text + "\n");
    if (!now) together = "";
    if (!request) continue;
    if (now) unawaited.push(answered);
    else await answered;
}
child.stdin.end();
await ended;
