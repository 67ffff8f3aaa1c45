package mcpgo_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcperr/mcperr/adapters/mcpgo"
	"github.com/mcperr/mcperr/domain"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/internal/testrig/adaptertest"
	"github.com/mcperr/mcperr/toolerr"
)

// taskSecret is what no client of a task may read.
const taskSecret = "password=hunter2"

// taskFailures are the failures of a task tool, and the message a client
// reads for each: "" for the masked one, with a ref.
var taskFailures = []struct {
	name string
	err  func() error // nil: the handler panics
	want string
}{
	{"error", func() error { return errors.New("dial 10.0.0.5: " + taskSecret + " refused") }, ""},
	{"panic", nil, ""},
	{"tool error", func() error {
		return toolerr.New("The report needs a date range; pass from and to.").WithCause(errors.New(taskSecret))
	}, "The report needs a date range; pass from and to."},
	{"not found", func() error {
		return &domain.NotFound{Resource: "Report", ID: "r-42", Cause: errors.New(taskSecret)}
	}, "Report not found: r-42"},
}

// taskClient is a client of a server with tasks, which keeps the task
// status notifications it receives.
type taskClient struct {
	*client.Client
	overHTTP bool
	mu       sync.Mutex
	statuses []string // the raw params of each notifications/tasks/status
}

// taskServer returns a server with the task capabilities, and a channel
// closed once it is asked for a task's result: a handler that waits for it
// fails while that request's stream is open, which carries the task's status
// notification over HTTP.
func taskServer() (*server.MCPServer, <-chan struct{}) {
	hooks, once, asked := &server.Hooks{}, &sync.Once{}, make(chan struct{})
	hooks.AddBeforeTaskResult(func(context.Context, any, *mcp.TaskResultRequest) { once.Do(func() { close(asked) }) })
	return server.NewMCPServer("tasks", "1.0.0", server.WithTaskCapabilities(true, true, true), server.WithHooks(hooks)), asked
}

func connectTasks(t *testing.T, s *server.MCPServer, overHTTP bool) *taskClient {
	t.Helper()
	var c *client.Client
	var err error
	if overHTTP {
		ts := httptest.NewServer(server.NewStreamableHTTPServer(s))
		t.Cleanup(ts.Close)
		c, err = client.NewStreamableHttpClient(ts.URL + "/mcp")
	} else {
		c, err = client.NewInProcessClient(s)
	}
	if err != nil {
		t.Fatal(err)
	}
	tc := &taskClient{Client: c, overHTTP: overHTTP}
	c.OnNotification(func(n mcp.JSONRPCNotification) {
		if n.Method == string(mcp.MethodNotificationTasksStatus) {
			raw, _ := json.Marshal(n.Params)
			tc.mu.Lock()
			tc.statuses = append(tc.statuses, string(raw))
			tc.mu.Unlock()
		}
	})
	connect(t, c, mcp.LATEST_LEGACY_PROTOCOL_VERSION) // tasks/result is gone from the modern protocol
	return tc
}

// rpc sends one request and returns its raw result or its error.
func (c *taskClient) rpc(t *testing.T, method string, params any) (json.RawMessage, *mcp.JSONRPCErrorDetails) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	resp, err := c.GetTransport().SendRequest(ctx, transport.JSONRPCRequest{
		JSONRPC: mcp.JSONRPC_VERSION, ID: mcp.NewRequestId(time.Now().UnixNano()), Method: method, Params: params})
	if err != nil {
		t.Fatalf("%s: %v", method, err)
	}
	return resp.Result, resp.Error
}

// taskRun is what a client read of one task.
type taskRun struct {
	status, statusMessage string
	result                json.RawMessage          // tasks/result's result
	resultErr             *mcp.JSONRPCErrorDetails // or its error
	notification          string                   // the terminal notifications/tasks/status
}

// runTask calls tool as a task, waits for its result and returns all a
// client reads of it.
func (c *taskClient) runTask(t *testing.T, tool string) taskRun {
	t.Helper()
	raw, rpcErr := c.rpc(t, "tools/call", map[string]any{"name": tool, "arguments": map[string]any{}, "task": map[string]any{}})
	if rpcErr != nil {
		t.Fatalf("tools/call as a task: %d %s", rpcErr.Code, rpcErr.Message)
	}
	var created mcp.CreateTaskResult
	if err := json.Unmarshal(raw, &created); err != nil || created.Task.TaskId == "" {
		t.Fatalf("tools/call as a task answered %s (%v), want a task", raw, err)
	}
	id := map[string]any{"taskId": created.Task.TaskId}
	var run taskRun
	run.result, run.resultErr = c.rpc(t, "tasks/result", id)
	raw, rpcErr = c.rpc(t, "tasks/get", id)
	if rpcErr != nil {
		t.Fatalf("tasks/get: %s", rpcErr.Message)
	}
	var got mcp.GetTaskResult
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatal(err)
	}
	run.status, run.statusMessage = string(got.Status), got.StatusMessage
	for deadline := time.Now().Add(5 * time.Second); run.notification == "" && time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		c.mu.Lock()
		for _, n := range c.statuses {
			if strings.Contains(n, created.Task.TaskId) && !strings.Contains(n, `"working"`) {
				run.notification = n
			}
		}
		c.mu.Unlock()
	}
	if run.notification == "" && !c.overHTTP { // over HTTP mcp-go sends it on whichever stream is open, if any
		t.Errorf("no terminal notifications/tasks/status for task %s", created.Task.TaskId)
	}
	return run
}

var taskRef = regexp.MustCompile(`^Internal error in tool "report" \(ref: ([0-9a-f]{16})\)\.$`)

// checkTaskRecord checks that log holds one record of the failure, with the
// ref of the masked message msg.
func checkTaskRecord(t *testing.T, log *adaptertest.Log, msg string, masked bool) {
	t.Helper()
	recs := log.Records(t)
	if len(recs) != 1 {
		t.Fatalf("records %v, want exactly one", recs)
	}
	if !masked {
		return
	}
	m := taskRef.FindStringSubmatch(msg)
	if m == nil {
		t.Fatalf("message %q, want the masked one with a ref", msg)
	}
	if recs[0]["ref"] != m[1] {
		t.Errorf("the record's ref is %v, the client's %s", recs[0]["ref"], m[1])
	}
	if recs[0]["level"] != "ERROR" {
		t.Errorf("record at %v, want ERROR", recs[0]["level"])
	}
}

// taskHandler returns a task handler that fails with fail, or panics if
// fail is nil, once asked is closed.
func taskHandler(asked <-chan struct{}, fail func() error) server.TaskToolHandlerFunc {
	return func(context.Context, mcp.CallToolRequest) (*mcp.CreateTaskResult, error) {
		select {
		case <-asked:
		case <-time.After(5 * time.Second):
		}
		if fail == nil {
			panic("lost the " + taskSecret)
		}
		return nil, fail()
	}
}

// TestTaskToolFailure checks a task tool added with AddTool, in process and
// over streamable HTTP: the task fails as mcp-go marks it, and its
// statusMessage, its status notification and the error of tasks/result
// hold what a tool call would answer, never the secret; one record, with
// the ref the client read.
func TestTaskToolFailure(t *testing.T) {
	for _, overHTTP := range []bool{false, true} {
		for _, tc := range taskFailures {
			t.Run(map[bool]string{false: "in-process", true: "http"}[overHTTP]+"/"+tc.name, func(t *testing.T) {
				var log adaptertest.Log
				s, asked := taskServer()
				if err := mcpgo.Install(s, testPipeline(log.Logger())); err != nil {
					t.Fatal(err)
				}
				tool := mcp.NewTool("report", mcp.WithTaskSupport(mcp.TaskSupportRequired))
				if err := mcpgo.AddTaskTool(s, tool, taskHandler(asked, tc.err)); err != nil {
					t.Fatal(err)
				}
				run := connectTasks(t, s, overHTTP).runTask(t, "report")
				if run.status != string(mcp.TaskStatusFailed) {
					t.Errorf("status %q, want failed", run.status)
				}
				if run.resultErr == nil {
					t.Fatalf("tasks/result answered %s, want the task's error", run.result)
				}
				if run.resultErr.Message != run.statusMessage {
					t.Errorf("tasks/result's message %q, statusMessage %q: want the same", run.resultErr.Message, run.statusMessage)
				}
				if tc.want != "" && run.statusMessage != tc.want {
					t.Errorf("statusMessage %q, want %q", run.statusMessage, tc.want)
				}
				var note struct{ Status, StatusMessage string }
				if err := json.Unmarshal([]byte(run.notification), &note); err == nil && (note.Status != "failed" || note.StatusMessage != run.statusMessage) {
					t.Errorf("notification %s, want failed with %q", run.notification, run.statusMessage)
				}
				for what, text := range map[string]string{"statusMessage": run.statusMessage, "tasks/result": run.resultErr.Message + string(run.result), "notification": run.notification} {
					if strings.Contains(text, "hunter2") || strings.Contains(text, "10.0.0.5") {
						t.Errorf("%s holds the secret: %s", what, text)
					}
				}
				checkTaskRecord(t, &log, run.statusMessage, tc.want == "")
			})
		}
	}
}

// TestTaskToolBare pins what mcp-go alone sends for a task tool's failure,
// which TestTaskToolFailure changes: the error's text, secret included.
func TestTaskToolBare(t *testing.T) {
	s, asked := taskServer()
	s.AddTaskTool(mcp.NewTool("report", mcp.WithTaskSupport(mcp.TaskSupportRequired)), taskHandler(asked, taskFailures[0].err))
	run := connectTasks(t, s, false).runTask(t, "report")
	if !strings.Contains(run.statusMessage, taskSecret) || run.resultErr == nil || !strings.Contains(run.resultErr.Message, taskSecret) {
		t.Errorf("bare mcp-go sent %q and %v; the SDK changed, and so may mcperr's answer", run.statusMessage, run.resultErr)
	}
}

// TestTaskToolSuccess checks that a task tool's success reads, byte for
// byte, as without mcperr.
func TestTaskToolSuccess(t *testing.T) {
	ok := func(context.Context, mcp.CallToolRequest) (*mcp.CreateTaskResult, error) {
		return &mcp.CreateTaskResult{Content: []mcp.Content{mcp.NewTextContent("done")}, StructuredContent: map[string]any{"n": 1}}, nil
	}
	tool := mcp.NewTool("report", mcp.WithTaskSupport(mcp.TaskSupportRequired))
	results := map[bool]string{}
	for _, withMcperr := range []bool{false, true} {
		var log adaptertest.Log
		s, _ := taskServer()
		if withMcperr {
			if err := mcpgo.Install(s, testPipeline(log.Logger())); err != nil {
				t.Fatal(err)
			}
			if err := mcpgo.AddTaskTool(s, tool, ok); err != nil {
				t.Fatal(err)
			}
		} else {
			s.AddTaskTool(tool, ok)
		}
		run := connectTasks(t, s, false).runTask(t, "report")
		if run.status != string(mcp.TaskStatusCompleted) || run.resultErr != nil || run.statusMessage != "" {
			t.Fatalf("mcperr %v: status %q %q, error %v", withMcperr, run.status, run.statusMessage, run.resultErr)
		}
		results[withMcperr] = regexp.MustCompile(`"taskId":"[^"]*"`).ReplaceAllString(string(run.result), `"taskId":"T"`)
		if recs := log.Records(t); len(recs) != 0 {
			t.Errorf("records %v, want none", recs)
		}
	}
	if results[true] != results[false] {
		t.Errorf("tasks/result with mcperr:\n%s\nwithout:\n%s", results[true], results[false])
	}
}

// TestRegularToolAsTask checks a regular tool that may run as a task, called
// as one: mcp-go runs it through the tool middleware, so Install covers it,
// however it was added. mcp-go marks the task "completed" and tasks/result
// is the isError result a tool call gets, envelope included.
func TestRegularToolAsTask(t *testing.T) {
	for _, tc := range taskFailures {
		for _, way := range []string{"s.AddTool", "mcpgo.AddTool"} {
			t.Run(tc.name+"/"+way, func(t *testing.T) {
				var log adaptertest.Log
				s, _ := taskServer()
				if err := mcpgo.Install(s, testPipeline(log.Logger())); err != nil {
					t.Fatal(err)
				}
				tool := mcp.NewTool("report", mcp.WithTaskSupport(mcp.TaskSupportOptional))
				h := func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					if tc.err == nil {
						panic("lost the " + taskSecret)
					}
					return nil, tc.err()
				}
				if way == "s.AddTool" {
					s.AddTool(tool, h)
				} else if err := mcpgo.AddTool(s, tool, h); err != nil {
					t.Fatal(err)
				}
				run := connectTasks(t, s, false).runTask(t, "report")
				if run.resultErr != nil || strings.Contains(run.statusMessage+run.notification, "hunter2") {
					t.Fatalf("status %q %q, tasks/result error %v", run.status, run.statusMessage, run.resultErr)
				}
				var res mcp.CallToolResult
				if err := json.Unmarshal(run.result, &res); err != nil {
					t.Fatal(err)
				}
				if _, ok := mcpgo.EnvelopeOf(&res); !ok || !res.IsError || strings.Contains(string(run.result), "hunter2") {
					t.Fatalf("tasks/result %s, want an error result with the envelope and no secret", run.result)
				}
				msg := res.Content[0].(mcp.TextContent).Text
				if tc.want != "" && msg != tc.want {
					t.Errorf("message %q, want %q", msg, tc.want)
				}
				checkTaskRecord(t, &log, msg, tc.want == "")
			})
		}
	}
}

// TestTaskToolOptions checks that a task tool's own options apply, as
// AddTool's do for any tool: its filter answers the error.
func TestTaskToolOptions(t *testing.T) {
	var log adaptertest.Log
	s, asked := taskServer()
	if err := mcpgo.Install(s, testPipeline(log.Logger())); err != nil {
		t.Fatal(err)
	}
	errBusy := errors.New("busy: " + taskSecret)
	tool := mcp.NewTool("report", mcp.WithTaskSupport(mcp.TaskSupportRequired))
	if err := mcpgo.AddTaskTool(s, tool, taskHandler(asked, func() error { return errBusy }),
		filter.WithFilters(filter.Is(errBusy, filter.Response{Message: "The reports are busy; try again in a minute."}))); err != nil {
		t.Fatal(err)
	}
	run := connectTasks(t, s, false).runTask(t, "report")
	if run.status != "failed" || run.statusMessage != "The reports are busy; try again in a minute." {
		t.Errorf("status %q %q, want the filter's answer", run.status, run.statusMessage)
	}
	checkTaskRecord(t, &log, run.statusMessage, false)
	if err := mcpgo.AddTaskTool(s, tool, taskHandler(asked, nil)); err == nil {
		t.Error("a second task tool of the same name was added")
	}
	if err := mcpgo.AddTool(s, tool, func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) { return nil, nil }); err == nil {
		t.Error("a tool with the name of a task tool was added")
	}
	if err := mcpgo.AddTaskTool(s, mcp.NewTool("other"), nil); err == nil {
		t.Error("a task tool without a handler was added")
	}
}

// TestTaskToolReportOnly checks a task tool in report-only mode: the client
// reads what mcp-go alone sends, and one record says what mcperr would send.
func TestTaskToolReportOnly(t *testing.T) {
	var log adaptertest.Log
	s, asked := taskServer()
	if err := mcpgo.Install(s, testPipeline(log.Logger(), filter.WithReportOnly(true))); err != nil {
		t.Fatal(err)
	}
	tool := mcp.NewTool("report", mcp.WithTaskSupport(mcp.TaskSupportRequired))
	if err := mcpgo.AddTaskTool(s, tool, taskHandler(asked, taskFailures[0].err)); err != nil {
		t.Fatal(err)
	}
	run := connectTasks(t, s, false).runTask(t, "report")
	if run.status != "failed" || !strings.Contains(run.statusMessage, taskSecret) {
		t.Errorf("status %q %q, want mcp-go's own", run.status, run.statusMessage)
	}
	recs := log.Records(t)
	if len(recs) != 1 || recs[0]["report_only"] != true || !taskRef.MatchString(fmt.Sprint(recs[0]["would_send"])) {
		t.Errorf("records %v, want one saying what mcperr would send", recs)
	}
}
