// The official TypeScript MCP client's task support (SEP-1686, the
// experimental tasks API) against examples/stdio-server on mcp-go, over
// streamable HTTP: export_orders runs only as a task, and fails as lookup
// does. mcp-go runs task tools outside every middleware; added with
// mcpgo.AddTool, the task's status message and tasks/result say only the
// masked message, whose ref names one line of the server's log.
import { test, before, after, describe } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { overHTTP } from "./servers.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const SECRET = "hunter2";
const MASKED = /^Internal error in tool "export_orders" \(ref: ([0-9a-f]{16})\)\.$/;

let dir;
let binary;

before(() => {
  dir = mkdtempSync(join(tmpdir(), "mcperr-interop-tasks-"));
  binary = join(dir, "stdio-server");
  execFileSync("go", ["build", "-o", binary, "./examples/stdio-server"], { cwd: root, stdio: "inherit" });
});

after(() => rmSync(dir, { recursive: true, force: true }));

// runTask calls export_orders as a task over conn, the way the client's
// task API does, and returns the messages of its stream, the task's last
// status, the error of tasks/result and the status notifications received.
async function runTask(conn) {
  const notifications = [];
  conn.client.fallbackNotificationHandler = async (n) => {
    if (n.method === "notifications/tasks/status") notifications.push(n.params);
  };
  await conn.client.listTools(); // learns that export_orders runs as a task
  const messages = [];
  for await (const m of conn.client.experimental.tasks.callToolStream({ name: "export_orders", arguments: {} })) {
    messages.push(m);
  }
  const created = messages.find((m) => m.type === "taskCreated");
  assert.ok(created, `no task created: ${JSON.stringify(messages)}`);
  const task = await conn.client.experimental.tasks.getTask(created.task.taskId);
  const resultError = await conn.client.experimental.tasks.getTaskResult(created.task.taskId).then(
    (r) => assert.fail(`tasks/result of a failed task answered ${JSON.stringify(r)}`),
    (e) => e,
  );
  return { messages, task, resultError, notifications };
}

describe("stdio-server -sdk=mcpgo over streamable HTTP: a task tool", () => {
  test("a task's failure is masked in its status, its status notification and tasks/result; its ref names one log line", async () => {
    const conn = await overHTTP(binary, ["-sdk", "mcpgo"]);
    try {
      const { messages, task, resultError, notifications } = await runTask(conn);
      assert.equal(task.status, "failed");
      const m = MASKED.exec(task.statusMessage);
      assert.ok(m, `statusMessage ${JSON.stringify(task.statusMessage)} is not the masked form`);
      assert.equal(messages.at(-1).type, "error");
      const statuses = messages.filter((x) => x.type === "taskStatus").map((x) => x.task);
      assert.equal(statuses.at(-1).statusMessage, task.statusMessage);
      assert.ok(resultError instanceof McpError, String(resultError));
      assert.equal(resultError.code, -32603);
      assert.ok(resultError.message.includes(task.statusMessage), resultError.message);
      const terminal = () => notifications.filter((n) => n.taskId === task.taskId && n.status !== "working");
      for (const until = Date.now() + 5000; terminal().length === 0 && Date.now() < until;) await new Promise((r) => setTimeout(r, 10));
      assert.equal(terminal().length, 1, `status notifications: ${JSON.stringify(notifications)}`);
      assert.equal(terminal()[0].status, "failed");
      assert.equal(terminal()[0].statusMessage, task.statusMessage);
      const seen = JSON.stringify({ messages, task, message: resultError.message, notifications });
      assert.ok(!seen.includes(SECRET), `the secret reached the client: ${seen}`);
      const deadline = Date.now() + 5000;
      while (!conn.log().includes(`ref=${m[1]}`) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      const lines = conn.log().split("\n").filter((l) => l.includes(`ref=${m[1]}`));
      assert.equal(lines.length, 1, conn.log());
      assert.ok(lines[0].includes("tool=export_orders") && lines[0].includes("level=ERROR"), lines[0]);
    } finally {
      await conn.close();
    }
  });

  test("without mcperr, mcp-go sends the error's text, secret included, as the task's status", async () => {
    const bare = await overHTTP(binary, ["-sdk", "mcpgo", "-bare"]);
    try {
      const { task, resultError } = await runTask(bare);
      assert.equal(task.status, "failed");
      assert.ok(task.statusMessage.includes(SECRET), task.statusMessage);
      assert.ok(resultError.message.includes(SECRET), resultError.message);
    } finally {
      await bare.close();
    }
  });
});
