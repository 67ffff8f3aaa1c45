// The official TypeScript MCP client against examples/stdio-server over
// stdio and over streamable HTTP, on both Go SDKs: arguments refused before
// the handler (-check-arguments), the same answer on both SDKs, and, on
// mcp-go, the SDK's own input validation (-sdk-validation), which alone
// sends its validator's text (which can hold the refused value), answered
// the same way; never the refused value.
import { test, before, after, describe } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { validateEnvelope } from "./envelope.mjs";
import { overStdio, overHTTP } from "./servers.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const SECRET = "hunter2";
const META_KEY = "io.github.mcperr/error";

let dir;
let binary;

before(() => {
  dir = mkdtempSync(join(tmpdir(), "mcperr-interop-arguments-"));
  binary = join(dir, "stdio-server");
  execFileSync("go", ["build", "-o", binary, "./examples/stdio-server"], { cwd: root, stdio: "inherit" });
});

after(() => rmSync(dir, { recursive: true, force: true }));

// The calls, and the JSON Pointers a refusal of each names.
const nestedQty = { customer: "ann", items: [{ sku: "A1", qty: 1 }, { sku: "B2", qty: `two ${SECRET}` }] };
const missingB = { a: 6 };
const fits = { customer: "ann", items: [{ sku: "A1", qty: 2 }] };

// refusal checks a VALIDATION_ERROR naming exactly pointers, with nothing
// of the refused value, and returns the text blocks the model reads.
function refusal(result, pointers) {
  assert.equal(result.isError, true, JSON.stringify(result));
  const env = result._meta?.[META_KEY];
  assert.ok(env, `no envelope: ${JSON.stringify(result)}`);
  assert.ok(validateEnvelope(env), `envelope does not fit the schema: ${JSON.stringify(validateEnvelope.errors)}`);
  assert.equal(env.code, "VALIDATION_ERROR");
  assert.deepEqual(env.details.violations.map((v) => v.pointer), pointers);
  assert.ok(!JSON.stringify(result).includes(SECRET), `the refused value reached the client: ${JSON.stringify(result)}`);
  return result.content.map((c) => c.text);
}

// answers holds, per transport, the texts each SDK sent for each refused
// call, to compare the SDKs.
const answers = {};

for (const [name, connect] of [["stdio", overStdio], ["streamable HTTP", overHTTP]]) {
  answers[name] = {};
  for (const sdk of ["gosdk", "mcpgo"]) {
    describe(`stdio-server -sdk=${sdk} -check-arguments over ${name}`, () => {
      let conn;
      before(async () => {
        conn = await connect(binary, ["-sdk", sdk, "-check-arguments"]);
        await conn.client.listTools();
      });
      after(async () => conn.close());

      test("a nested value of the wrong type is refused before the handler, by its pointer", async () => {
        const r = await conn.client.callTool({ name: "place_order", arguments: nestedQty });
        (answers[name][sdk] ??= {}).nested = refusal(r, ["/items/1/qty"]);
        assert.ok(!JSON.stringify(r).includes("Order placed"), JSON.stringify(r));
      });

      test("a missing required argument is refused before the handler reads it as 0", async () => {
        const r = await conn.client.callTool({ name: "divide", arguments: missingB });
        (answers[name][sdk] ??= {}).missing = refusal(r, ["/b"]);
        assert.ok(!JSON.stringify(r).includes("must not be zero"), JSON.stringify(r));
      });

      test("arguments that fit reach the handler", async () => {
        const r = await conn.client.callTool({ name: "place_order", arguments: fits });
        assert.ok(!r.isError, JSON.stringify(r));
        assert.equal(r.content[0].text, "Order placed: 1 items.");
      });
    });
  }

  describe(`both SDKs over ${name}`, () => {
    test("the same bad arguments get the same answer", () => {
      assert.deepEqual(answers[name].mcpgo, answers[name].gosdk);
      assert.ok(answers[name].gosdk?.nested && answers[name].gosdk?.missing, "the refusals were not collected");
    });
  });

  describe(`stdio-server -sdk=mcpgo -sdk-validation over ${name}`, () => {
    let conn;
    before(async () => {
      conn = await connect(binary, ["-sdk", "mcpgo", "-sdk-validation"]);
      await conn.client.listTools();
    });
    after(async () => conn.close());

    test("mcp-go's own refusal is VALIDATION_ERROR naming the field, never the value", async () => {
      const r = await conn.client.callTool({ name: "place_order", arguments: nestedQty });
      assert.deepEqual(refusal(r, ["/items/1/qty"]), answers[name].gosdk.nested);
    });
  });

  describe(`stdio-server -sdk=mcpgo -sdk-validation -bare over ${name}`, () => {
    let conn;
    before(async () => {
      conn = await connect(binary, ["-sdk", "mcpgo", "-sdk-validation", "-bare"]);
      await conn.client.listTools();
    });
    after(async () => conn.close());

    test("without mcperr, mcp-go's refusal is its validator's own text, without a code", async () => {
      const r = await conn.client.callTool({ name: "place_order", arguments: nestedQty });
      assert.equal(r.isError, true);
      assert.equal(r._meta?.[META_KEY], undefined);
      assert.equal(r.content.length, 1);
      assert.ok(!r.content[0].text.includes("VALIDATION_ERROR"), JSON.stringify(r));
    });
  });

  describe(`stdio-server -sdk=gosdk without -check-arguments over ${name}`, () => {
    let conn;
    before(async () => {
      conn = await connect(binary, ["-sdk", "gosdk"]);
      await conn.client.listTools();
    });
    after(async () => conn.close());

    test("off by default: a handler that reads loosely still succeeds", async () => {
      const r = await conn.client.callTool({ name: "place_order", arguments: nestedQty });
      assert.ok(!r.isError, JSON.stringify(r));
      assert.equal(r.content[0].text, "Order placed: 2 items.");
    });
  });
}
