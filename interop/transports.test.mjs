// The official TypeScript MCP client against examples/stdio-server over
// stdio and over streamable HTTP, on both Go SDKs: the failures whose class
// depends on their cause, and the leaks mcperr closes, as a real host sees
// them.
import { test, before, after, describe } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { validateEnvelope } from "./envelope.mjs";
import { overStdio as stdio, overHTTP as http } from "./servers.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const SECRET = "hunter2";
const META_KEY = "io.github.mcperr/error";
const REF = /^Internal error in tool "([a-z_]+)" \(ref: ([0-9a-f]{16})\)\.$/;

let dir;
let binary;

before(() => {
  dir = mkdtempSync(join(tmpdir(), "mcperr-interop-transports-"));
  binary = join(dir, "stdio-server");
  execFileSync("go", ["build", "-o", binary, "./examples/stdio-server"], { cwd: root, stdio: "inherit" });
});

after(() => rmSync(dir, { recursive: true, force: true }));

// overStdio and overHTTP connect to the server on sdk.
const overStdio = (sdk) => stdio(binary, ["-sdk", sdk]);
const overHTTP = (sdk) => http(binary, ["-sdk", sdk]);

function envelope(result) {
  const env = result._meta?.[META_KEY];
  assert.ok(env, `no envelope: ${JSON.stringify(result)}`);
  assert.ok(validateEnvelope(env), `envelope does not fit the schema: ${JSON.stringify(validateEnvelope.errors)}`);
  return env;
}

function assertNoSecret(result) {
  assert.ok(!JSON.stringify(result).includes(SECRET), `the secret reached the client: ${JSON.stringify(result)}`);
}

// linesWith waits, up to five seconds, for the server's log, which reaches
// the client on a stream of its own, to hold text, and returns its lines
// that hold it.
async function linesWith(log, text) {
  const deadline = Date.now() + 5000;
  while (!log().includes(text) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return log().split("\n").filter((l) => l.includes(text));
}

// assertMasked checks a masked internal error of tool, and that its ref
// names exactly one line of the server's log.
async function assertMasked(result, tool, log) {
  assert.equal(result.isError, true);
  const m = REF.exec(result.content[0].text);
  assert.ok(m, `text ${JSON.stringify(result.content[0].text)} is not the masked form`);
  assert.equal(m[1], tool);
  const env = envelope(result);
  assert.equal(env.code, "INTERNAL_ERROR");
  assert.equal(env.ref, m[2]);
  assert.ok(!result.content.some((c) => /Hint/.test(c.text)), `a masked error shows a hint: ${JSON.stringify(result.content)}`);
  assertNoSecret(result);
  assert.equal((await linesWith(log, `ref=${m[2]}`)).length, 1, `ref ${m[2]} in the log:\n${log()}`);
}

for (const sdk of ["gosdk", "mcpgo"]) {
  for (const [name, connect, connectWith] of [["stdio", overStdio, stdio], ["streamable HTTP", overHTTP, http]]) {
    describe(`stdio-server -sdk=${sdk} over ${name}`, () => {
      let conn;
      before(async () => {
        conn = await connect(sdk);
        await conn.client.listTools();
      });
      after(async () => conn.close());

      test("the request's own deadline is a TIMEOUT", async () => {
        const r = await conn.client.callTool({ name: "slow", arguments: {} });
        assert.equal(r.isError, true);
        assert.equal(envelope(r).code, "TIMEOUT");
        assert.equal(envelope(r).retryable, true);
        assertNoSecret(r);
      });

      test("a read-only tool's transient failure is retried on the server", async () => {
        const r = await conn.client.callTool({ name: "stock", arguments: {} });
        assert.equal(r.isError ?? false, false, JSON.stringify(r));
        assert.equal(r.content[0].text, "12 in stock");
      });

      test("the request's own deadline on a tool that changes things: outcome unknown", async () => {
        const r = await conn.client.callTool({ name: "charge", arguments: {} });
        assert.equal(envelope(r).code, "TIMEOUT");
        assert.equal(envelope(r).retryable, false);
        assert.equal(envelope(r).outcome, "unknown");
      });

      test("a sub-operation's cancellation is the server's failure, masked", async () => {
        const r = await conn.client.callTool({ name: "replica", arguments: {} });
        await assertMasked(r, "replica", conn.log);
        assert.ok(!JSON.stringify(r).includes("canceled"), JSON.stringify(r));
      });

      test("a masked error shows nothing of itself, not its hint", async () => {
        await assertMasked(await conn.client.callTool({ name: "lookup", arguments: {} }), "lookup", conn.log);
      });

      test("arguments that do not fit are VALIDATION_ERROR naming the field, never the value", async () => {
        const r = await conn.client.callTool({ name: "divide", arguments: { a: "six", b: 2 } });
        assert.equal(r.isError, true);
        assert.equal(envelope(r).code, "VALIDATION_ERROR");
        assert.deepEqual(envelope(r).details.violations.map((v) => v.field), ["a"]);
        assert.ok(!JSON.stringify(r).includes("six"), JSON.stringify(r));
      });

      if (sdk === "mcpgo") {
        // What mcp-go's typed helper builds from an error is not a
        // hand-built result: mcperr knows the helper's handler and answers
        // the failure as the error it stands for, masked with a ref.
        // mcpgo.Structured is the way to keep a ToolError's words.
        const atlantis = { city: "Atlantis" };

        test("what mcp-go's typed helper builds from an error is masked, where the bare SDK sends its text", async () => {
          const bare = await connectWith(binary, ["-sdk", sdk, "-bare"]);
          try {
            await bare.client.listTools();
            const leaked = await bare.client.callTool({ name: "forecast_helper", arguments: atlantis });
            assert.equal(leaked.isError, true);
            assert.match(leaked.content[0].text, /^tool execution failed: .*hunter2/, JSON.stringify(leaked));
            await assertMasked(await conn.client.callTool({ name: "forecast_helper", arguments: atlantis }), "forecast_helper", conn.log);
            // The same error through mcpgo.Structured (forecast) is masked too.
            await assertMasked(await conn.client.callTool({ name: "forecast", arguments: atlantis }), "forecast", conn.log);
          } finally {
            await bare.close();
          }
        });

        test("in report-only mode what mcp-go's typed helper builds from an error reaches the client as the bare SDK sends it, and is reported once as masked", async () => {
          const ro = await connectWith(binary, ["-sdk", sdk, "-report-only"]);
          try {
            await ro.client.listTools();
            const r = await ro.client.callTool({ name: "forecast_helper", arguments: atlantis });
            assert.equal(r.isError, true);
            assert.match(r.content[0].text, /^tool execution failed: /, JSON.stringify(r));
            assert.equal(r._meta?.[META_KEY], undefined, "an envelope in report-only mode");
            const lines = await linesWith(ro.log, "tool=forecast_helper");
            assert.equal(lines.length, 1, ro.log());
            for (const want of ["report_only=true", "masked=true", "code=INTERNAL_ERROR", "ref="]) {
              assert.ok(lines[0].includes(want), `${want} not in ${lines[0]}`);
            }
          } finally {
            await ro.close();
          }
        });
      }
    });
  }
}
