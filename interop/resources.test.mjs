// The official TypeScript MCP client against examples/stdio-server, on both
// Go SDKs: a resource and a prompt that fail, which have no isError result
// and so fail as JSON-RPC errors.
import { test, before, after, describe } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { validateEnvelope } from "./envelope.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const SECRET = "hunter2";

let dir;
let binary;

before(() => {
  dir = mkdtempSync(join(tmpdir(), "mcperr-interop-rpc-"));
  binary = join(dir, "stdio-server");
  execFileSync("go", ["build", "-o", binary, "./examples/stdio-server"], { cwd: root, stdio: "inherit" });
});

after(() => rmSync(dir, { recursive: true, force: true }));

async function connect(args) {
  const transport = new StdioClientTransport({ command: binary, args, stderr: "pipe" });
  let stderr = "";
  transport.stderr.on("data", (chunk) => { stderr += chunk.toString(); });
  const client = new Client({ name: "interop-rpc", version: "1.0.0" });
  await client.connect(transport);
  return { client, log: () => stderr };
}

// expectMasked checks a rejected request: -32603, the masked text naming
// what failed, the same ref in the data (on go-sdk; mcp-go sends no data
// for a handler's error), no secret anywhere, and the ref in exactly one
// log record holding the full error.
async function expectMasked(sdk, promise, what, log, inLog) {
  let caught;
  await assert.rejects(promise, (err) => { caught = err; return true; });
  assert.equal(caught.code, -32603, `code ${caught.code}: ${caught.message}`);
  const m = /Internal error in (resource|prompt) "([^"]+)" \(ref: ([0-9a-f]{16})\)\./.exec(caught.message);
  assert.ok(m, `message ${JSON.stringify(caught.message)} is not the masked form`);
  assert.equal(`${m[1]} ${m[2]}`, what);
  const ref = m[3];
  if (sdk === "gosdk") {
    assert.ok(validateEnvelope(caught.data), `data does not fit the envelope schema: ${JSON.stringify(validateEnvelope.errors)}`);
    assert.equal(caught.data.code, "INTERNAL_ERROR", JSON.stringify(caught.data));
    assert.equal(caught.data.ref, ref);
  } else {
    assert.equal(caught.data, undefined, JSON.stringify(caught.data));
  }
  const everything = JSON.stringify({ message: caught.message, data: caught.data });
  assert.ok(!everything.includes(SECRET), `secret reached the client: ${everything}`);
  await new Promise((resolve) => setTimeout(resolve, 100)); // let stderr drain
  const lines = log().split("\n").filter((line) => line.includes(ref));
  assert.equal(lines.length, 1, `ref ${ref} in ${lines.length} log lines:\n${log()}`);
  assert.ok(lines[0].includes(inLog), `the log record lacks the full error: ${lines[0]}`);
}

for (const sdk of ["gosdk", "mcpgo"]) {
  describe(`stdio-server -sdk=${sdk}: resources and prompts`, () => {
    let client;
    let log;

    before(async () => {
      ({ client, log } = await connect(["-sdk", sdk]));
    });

    after(async () => { await client?.close(); });

    test("a resource that reads is untouched", async () => {
      const r = await client.readResource({ uri: "docs://readme" });
      assert.equal(r.contents[0].text, "mcperr's stdio server: every kind of failure, on demand.");
    });

    test("a failing resource: masked, with a ref in exactly one log record", async () => {
      await expectMasked(sdk, client.readResource({ uri: "db://orders" }), 'resource db://orders', log, "password=hunter2");
    });

    test("a prompt that panics: masked, with a ref in exactly one log record", async () => {
      await expectMasked(sdk, client.getPrompt({ name: "summarize_order" }), 'prompt summarize_order', log, "assignment to entry in nil map");
    });

    test("the server keeps serving after a panic in a prompt", async () => {
      await assert.rejects(client.getPrompt({ name: "summarize_order" }));
      const r = await client.readResource({ uri: "docs://readme" });
      assert.equal(r.contents[0].text, "mcperr's stdio server: every kind of failure, on demand.");
      const t = await client.callTool({ name: "divide", arguments: { a: 9, b: 3 } });
      assert.equal(t.content[0].text, "3");
    });

    test("a resource that is not found: its public message, and on go-sdk the code the spec names with the envelope", async () => {
      const ok = await client.readResource({ uri: "orders://ord_1" });
      assert.equal(ok.contents[0].text, "Order ord_1: pending");
      let caught;
      await assert.rejects(client.readResource({ uri: "orders://ord_404" }), (err) => { caught = err; return true; });
      assert.equal(caught.message.endsWith("Order not found: ord_404"), true, caught.message);
      if (sdk === "gosdk") {
        // -32002 up to protocol 2025-11-25, -32602 from 2026-07-28 on.
        assert.ok([-32002, -32602].includes(caught.code), `code ${caught.code}`);
        assert.ok(validateEnvelope(caught.data), `data does not fit the envelope schema: ${JSON.stringify(validateEnvelope.errors)}`);
        assert.equal(caught.data.code, "NOT_FOUND");
        assert.equal(caught.data.category, "client");
        assert.equal(caught.data.uri, "orders://ord_404");
        assert.equal(caught.data.ref, undefined);
      } else {
        // mcp-go sends every handler error as -32603, without data.
        assert.equal(caught.code, -32603);
        assert.equal(caught.data, undefined);
      }
    });

    test("an unknown prompt stays the SDK's own protocol error", async () => {
      await assert.rejects(client.getPrompt({ name: "no_such_prompt" }), (err) => {
        assert.equal(err.code, -32602);
        assert.equal(err.data?.code, undefined);
        return true;
      });
    });
  });
}
