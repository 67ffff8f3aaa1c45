// The official TypeScript MCP client against examples/stdio-server, on both
// Go SDKs: every kind of failure, as a real MCP host would see it.
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
const META_KEY = "io.github.mcperr/error";
const REF = /^Internal error in tool "([a-z_]+)" \(ref: ([0-9a-f]{16})\)\.$/;
const NO_RETRY = "Retry: no, not with the same arguments.";

let dir;
let binary;

before(() => {
  dir = mkdtempSync(join(tmpdir(), "mcperr-interop-"));
  binary = join(dir, "stdio-server");
  execFileSync("go", ["build", "-o", binary, "./examples/stdio-server"], { cwd: root, stdio: "inherit" });
});

after(() => rmSync(dir, { recursive: true, force: true }));

// connect starts the server and returns the client, a function that
// returns everything the server wrote to stderr so far, and one that
// forgets it.
async function connect(args) {
  const transport = new StdioClientTransport({ command: binary, args, stderr: "pipe" });
  let stderr = "";
  transport.stderr.on("data", (chunk) => { stderr += chunk.toString(); });
  const client = new Client({ name: "interop", version: "1.0.0" });
  await client.connect(transport);
  return { client, log: () => stderr, clearLog: () => { stderr = ""; } };
}

// envelope returns the mcperr envelope of a result, checked against the
// schema when there is one.
function envelope(result) {
  const env = result._meta?.[META_KEY];
  if (env !== undefined) {
    assert.ok(validateEnvelope(env), `envelope does not fit the schema: ${JSON.stringify(validateEnvelope.errors)}\n${JSON.stringify(env)}`);
    assert.equal(env.version, 1);
  }
  return env;
}

// blocks returns the text blocks the model reads.
function blocks(result) {
  return result.content.map((c) => c.text);
}

function text(result) {
  return result.content[0].text;
}

// assertNoSecret checks every byte the client received.
function assertNoSecret(result) {
  assert.ok(!JSON.stringify(result).includes(SECRET), `secret reached the client: ${JSON.stringify(result)}`);
}

// logRecordsWith returns the stderr lines that name the ref.
function logRecordsWith(log, ref) {
  return log.split("\n").filter((line) => line.includes(ref));
}

for (const sdk of ["gosdk", "mcpgo"]) {
  describe(`stdio-server -sdk=${sdk}`, () => {
    let client;
    let log;

    before(async () => {
      ({ client, log } = await connect(["-sdk", sdk]));
      const { tools } = await client.listTools(); // also caches output schemas for validation
      const names = tools.map((t) => t.name).sort();
      for (const want of ["charge", "crash", "stock", "delete_order", "divide", "forecast", "get_order", "lookup", "quote", "set_status", "ship_order", "slow"]) {
        assert.ok(names.includes(want), `tool ${want} missing from ${names}`);
      }
    });

    after(async () => { await client?.close(); });

    test("success is untouched", async () => {
      const r = await client.callTool({ name: "divide", arguments: { a: 6, b: 3 } });
      assert.equal(r.isError ?? false, false);
      assert.equal(text(r), "2");
      assert.equal(envelope(r), undefined);
    });

    test("a ToolError reaches the model exactly as written", async () => {
      const r = await client.callTool({ name: "divide", arguments: { a: 1, b: 0 } });
      assert.equal(r.isError, true);
      assert.equal(text(r), "b must not be zero.");
      assert.equal(envelope(r).code, "TOOL_ERROR");
      assert.equal(envelope(r).message, "b must not be zero.");
      assert.deepEqual(blocks(r), ["b must not be zero.", `Code: TOOL_ERROR\n${NO_RETRY}\nHint: Pass a non-zero b.`]);
    });

    test("domain errors give their code and a safe message", async () => {
      const cases = [
        ["get_order", { id: "ord_404" }, "NOT_FOUND", "client", "Order not found: ord_404",
          `Code: NOT_FOUND\nDetails: {"resourceId":"ord_404","resourceType":"Order"}\n${NO_RETRY}`],
        ["set_status", { id: "ord_1", status: "lost" }, "VALIDATION_ERROR", "client", "Validation failed for status: Must be one of: pending, processing, shipped, delivered",
          `Code: VALIDATION_ERROR\nDetails: {"violations":[{"constraint":"Must be one of: pending, processing, shipped, delivered","field":"status"}]}\n${NO_RETRY}`],
        ["delete_order", { id: "ord_1" }, "FORBIDDEN", "client", "Access denied.", `Code: FORBIDDEN\n${NO_RETRY}`],
        ["ship_order", { id: "ord_delivered" }, "ORDER_ALREADY_DELIVERED", "business", "Cannot change status of a delivered order",
          `Code: ORDER_ALREADY_DELIVERED\nDetails: {"currentStatus":"delivered","orderId":"ord_delivered"}\n${NO_RETRY}`],
      ];
      for (const [name, args, code, category, message, facts] of cases) {
        const r = await client.callTool({ name, arguments: args });
        assert.equal(r.isError, true, name);
        assert.deepEqual(blocks(r), [message, facts], name);
        assert.equal(envelope(r).code, code, name);
        assert.equal(envelope(r).category, category, name);
        assert.equal(envelope(r).retryable, false, name);
        assert.equal(envelope(r).ref, undefined, name);
        assertNoSecret(r);
      }
      const v = await client.callTool({ name: "set_status", arguments: { id: "ord_1", status: "lost" } });
      assert.deepEqual(envelope(v).details.violations.map((x) => x.field), ["status"]);
      assert.ok(!JSON.stringify(v).includes('"lost"'), "a Validation's value reached the client");
      const a = await client.callTool({ name: "delete_order", arguments: { id: "ord_1" } });
      assert.ok(!JSON.stringify(a).includes("orders:delete"), "the required permission reached the client");
    });

    for (const [tool, inLog] of [["lookup", "password=hunter2"], ["crash", "assignment to entry in nil map"]]) {
      test(`${tool}: masked, with a ref found in exactly one log record`, async () => {
        const r = await client.callTool({ name: tool, arguments: {} });
        assert.equal(r.isError, true);
        const m = REF.exec(text(r));
        assert.ok(m, `text ${JSON.stringify(text(r))} is not the masked form`);
        assert.equal(m[1], tool);
        const ref = m[2];
        assert.equal(envelope(r).code, "INTERNAL_ERROR");
        assert.equal(envelope(r).category, "server");
        assert.equal(envelope(r).ref, ref);
        assert.deepEqual(blocks(r).slice(1), ["Code: INTERNAL_ERROR\nRetry: no."]);
        assertNoSecret(r);
        await new Promise((resolve) => setTimeout(resolve, 100)); // let stderr drain
        const lines = logRecordsWith(log(), ref);
        assert.equal(lines.length, 1, `ref ${ref} in ${lines.length} log lines:\n${log()}`);
        assert.ok(lines[0].includes(inLog), `the log record lacks the full error: ${lines[0]}`);
      });
    }

    test("the server keeps serving after a panic", async () => {
      await client.callTool({ name: "crash", arguments: {} });
      const r = await client.callTool({ name: "divide", arguments: { a: 9, b: 3 } });
      assert.equal(text(r), "3");
    });

    test("a read-only tool's transient failure is retried on the server: the client reads the success", async () => {
      const r = await client.callTool({ name: "stock", arguments: {} });
      assert.equal(r.isError ?? false, false, JSON.stringify(r));
      assert.equal(text(r), "12 in stock");
      assert.equal(envelope(r), undefined);
      await new Promise((resolve) => setTimeout(resolve, 100)); // let stderr drain
      const records = log().split("\n").filter((line) => line.includes("tool=stock"));
      assert.equal(records.length, 1, records.join("\n"));
      assert.ok(records[0].includes("attempt=1") && records[0].includes("code=UNAVAILABLE"), records[0]);
    });

    test("a deadline on a tool that changes things: the outcome is unknown, check before calling again", async () => {
      const r = await client.callTool({ name: "charge", arguments: {} });
      assert.equal(r.isError, true);
      const env = envelope(r);
      assert.equal(env.code, "TIMEOUT");
      assert.equal(env.retryable, false);
      assert.equal(env.outcome, "unknown");
      assert.equal(env.retryAfterSeconds, undefined);
      assert.deepEqual(blocks(r), [
        `The tool did not finish in time, and may have done its work before it stopped (ref: ${env.ref}).`,
        "Code: TIMEOUT\nRetry: not before checking; the outcome is unknown, and the tool may have done its work before it failed.",
      ]);
      await new Promise((resolve) => setTimeout(resolve, 100)); // let stderr drain
      assert.equal(logRecordsWith(log(), env.ref).length, 1);
    });

    test("a deadline on a read-only tool is a retryable TIMEOUT whose text ends with its ref", async () => {
      const r = await client.callTool({ name: "slow", arguments: {} });
      assert.equal(r.isError, true);
      assert.equal(envelope(r).code, "TIMEOUT");
      assert.equal(envelope(r).retryable, true);
      const ref = envelope(r).ref;
      assert.match(ref, /^[0-9a-f]{16}$/);
      assert.deepEqual(blocks(r), [`The tool did not finish in time; try again, perhaps with a smaller request (ref: ${ref}).`, "Code: TIMEOUT\nRetry: yes."]);
      await new Promise((resolve) => setTimeout(resolve, 100)); // let stderr drain
      assert.equal(logRecordsWith(log(), ref).length, 1);
    });

    test("every failure carries its request id: a UUID v7 minted for it, on both SDKs", async () => {
      // Not the JSON-RPC id (the TypeScript client numbers its requests),
      // and unique across the calls.
      const ids = new Set();
      for (const [name, args] of [["divide", { a: 1, b: 0 }], ["lookup", {}], ["get_order", { id: "ord_404" }]]) {
        const r = await client.callTool({ name, arguments: args });
        const id = envelope(r).requestId;
        assert.match(id, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/, name);
        assert.ok(!ids.has(id), `request id ${id} twice`);
        ids.add(id);
      }
    });

    test("a rate limit says when to retry, in words and in the envelope", async () => {
      const r = await client.callTool({ name: "quote", arguments: {} });
      assert.equal(r.isError, true);
      assert.deepEqual(blocks(r), ["Too many requests. Retry after 30 seconds.",
        'Code: RATE_LIMITED\nDetails: {"retryAfterSeconds":30}\nRetry: yes, after 30 seconds.']);
      assert.equal(envelope(r).retryable, true);
      assert.equal(envelope(r).retryAfterSeconds, 30);
    });

    test("bad arguments of a failed call name the fields", async () => {
      // go-sdk refuses these before the handler runs; on mcp-go the
      // handler fails (it cannot read a or b, or b is zero), and mcperr
      // then checks the arguments against the schema.
      const cases = [
        [{ a: "six", b: 2 }, [["a", "/a", "type"]]],
        [{ a: 1 }, [["b", "/b", "required"]]],
        [{ a: 1, extra: SECRET }, [["b", "/b", "required"], ["extra", "/extra", "additionalProperties"]]],
      ];
      if (sdk === "gosdk") {
        cases.push([{ a: 1, b: 2, extra: SECRET }, [["extra", "/extra", "additionalProperties"]]]);
      }
      for (const [args, fields] of cases) {
        const r = await client.callTool({ name: "divide", arguments: args });
        assert.equal(r.isError, true, JSON.stringify(args));
        assert.equal(envelope(r).code, "VALIDATION_ERROR", JSON.stringify(r));
        assert.deepEqual(envelope(r).details.violations.map((v) => [v.field, v.pointer, v.reason]), fields);
        assert.ok(blocks(r)[1].startsWith("Code: VALIDATION_ERROR\nDetails: "), blocks(r)[1]);
        assert.ok(blocks(r)[1].includes(`"pointer":"${fields[0][1]}"`), blocks(r)[1]);
        assert.ok(!JSON.stringify(r).includes("six"), "the offending value reached the client");
        assertNoSecret(r);
      }
      if (sdk === "mcpgo") {
        // The handler's own message for the model wins over the check.
        const r = await client.callTool({ name: "divide", arguments: { a: 1, b: 0, extra: SECRET } });
        assert.equal(envelope(r).code, "TOOL_ERROR", JSON.stringify(r));
        assert.equal(blocks(r)[0], "b must not be zero.");
        assertNoSecret(r);
      }
    });

    if (sdk === "mcpgo") {
      test("a call the handler answers stays a success, whatever its arguments", async () => {
        // mcp-go hands the handler its arguments unchecked; mcperr checks
        // them only when the call fails, and leaves a success alone.
        const r = await client.callTool({ name: "divide", arguments: { a: 1, b: 2, extra: SECRET } });
        assert.equal(r.isError ?? false, false, JSON.stringify(r));
        assert.equal(text(r), "0.5");
        assert.equal(envelope(r), undefined);
        assertNoSecret(r);
      });
    }

    test("a tool with an output schema: success validates, an error is accepted", async () => {
      const ok = await client.callTool({ name: "forecast", arguments: { city: "Paris" } });
      assert.equal(ok.isError ?? false, false);
      assert.equal(ok.structuredContent.city, "Paris");
      const bad = await client.callTool({ name: "forecast", arguments: { city: "Atlantis" } });
      assert.equal(bad.isError, true);
      assert.match(text(bad), REF);
      assert.equal(bad.structuredContent, undefined);
      assertNoSecret(bad);
    });

    test("an unknown tool stays a protocol error", async () => {
      await assert.rejects(client.callTool({ name: "no_such_tool", arguments: {} }), (err) => {
        assert.equal(err.code, -32602);
        return true;
      });
    });

    test("report-only: every failure is what the bare SDK sends, and logged once with what mcperr would send; a ToolError or domain error is answered", async () => {
      const bare = await connect(["-sdk", sdk, "-bare"]);
      const ro = await connect(["-sdk", sdk, "-report-only"]);
      // outcome is what a client sees of one call: the result, or the
      // JSON-RPC error.
      const outcome = (c, name, args) => c.callTool({ name, arguments: args }).then(
        (r) => ({ result: r }), (err) => ({ error: { code: err.code, message: err.message } }));
      try {
        await bare.client.listTools();
        await ro.client.listTools();
        // answered: an error written for mcperr, which the bare SDK would
        // send as its text, cause and all; report-only mode answers it as
        // enforcing does.
        const failing = [
          ["divide", { a: 1, b: 0 }, "TOOL_ERROR", true],
          ["get_order", { id: "ord_404" }, "NOT_FOUND", true],
          ["set_status", { id: "ord_1", status: "lost" }, "VALIDATION_ERROR", true],
          ["delete_order", { id: "ord_1" }, "FORBIDDEN", true],
          ["ship_order", { id: "ord_delivered" }, "ORDER_ALREADY_DELIVERED", true],
          ["lookup", {}, "INTERNAL_ERROR", false],
          ["divide", { a: "six", b: 2 }, "VALIDATION_ERROR", false],
        ];
        for (const [name, args, code, answered] of failing) {
          const want = await outcome(bare.client, name, args);
          const got = await outcome(ro.client, name, args);
          if (answered) {
            assert.equal(got.result?._meta?.[META_KEY]?.code, code, `${name} ${JSON.stringify(args)}: ${JSON.stringify(got)}`);
            assert.equal(got.result.isError, true, name);
            const records = ro.log().split("\n").filter((l) => l.includes(`code=${code}`));
            assert.equal(records.length, 1, `${name}: ${records.length} records:\n${ro.log()}`);
            assert.ok(!records[0].includes("report_only=true"), `${name}: ${records[0]}`);
            ro.clearLog();
            continue;
          }
          assert.deepEqual(got, want, `${name} ${JSON.stringify(args)}`);
          assert.equal(got.result?._meta?.[META_KEY], undefined, "report-only sent an envelope");
          const records = ro.log().split("\n").filter((l) => l.includes("report_only=true"));
          assert.equal(records.length, 1, `${name}: ${records.length} report-only records:\n${ro.log()}`);
          assert.ok(records[0].includes(`code=${code}`), `${name}: ${records[0]}`);
          assert.ok(records[0].includes(`masked=${code === "INTERNAL_ERROR"}`), `${name}: ${records[0]}`);
          assert.ok(records[0].includes("would_send="), `${name}: ${records[0]}`);
          ro.clearLog();
        }
        const ok = [["divide", { a: 6, b: 3 }], ["get_order", { id: "ord_1" }]];
        for (const [name, args] of ok) {
          assert.deepEqual(await outcome(ro.client, name, args), await outcome(bare.client, name, args), name);
        }
        assert.equal(ro.log(), "", "a success was logged");
      } finally {
        await bare.client.close();
        await ro.client.close();
      }
    });

    test("success results are what the bare SDK sends", async () => {
      const bare = await connect(["-sdk", sdk, "-bare"]);
      try {
        await bare.client.listTools();
        for (const [name, args] of [["divide", { a: 6, b: 3 }], ["forecast", { city: "Paris" }], ["get_order", { id: "ord_1" }]]) {
          const want = await bare.client.callTool({ name, arguments: args });
          const got = await client.callTool({ name, arguments: args });
          assert.deepEqual(got, want, name);
        }
      } finally {
        await bare.client.close();
      }
    });
  });
}
