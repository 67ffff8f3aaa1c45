// Connections of the official TypeScript client to examples/stdio-server,
// over stdio and over streamable HTTP, shared by the interop tests.
import { spawn } from "node:child_process";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

// overStdio starts binary with args and connects to it over stdio.
export async function overStdio(binary, args) {
  const transport = new StdioClientTransport({ command: binary, args, stderr: "pipe" });
  let stderr = "";
  transport.stderr.on("data", (chunk) => { stderr += chunk.toString(); });
  const client = new Client({ name: "interop", version: "1.0.0" });
  await client.connect(transport);
  return { client, log: () => stderr, close: () => client.close() };
}

// overHTTP starts binary with args on a free loopback port and connects to
// it over streamable HTTP.
export async function overHTTP(binary, args) {
  const proc = spawn(binary, [...args, "-http", "127.0.0.1:0"], { stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the server did not listen:\n${stderr}`)), 30000);
    proc.stderr.on("data", (chunk) => {
      stderr += chunk.toString();
      const m = /listening on (http:\/\/\S+)/.exec(stderr);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    proc.on("exit", (code) => reject(new Error(`the server exited (${code}):\n${stderr}`)));
  });
  const client = new Client({ name: "interop", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return {
    client,
    log: () => stderr,
    close: async () => {
      await client.close();
      proc.kill();
    },
  };
}
