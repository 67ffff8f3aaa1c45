package ghserver_test

import (
	"log/slog"
	"net/http/httptest"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcperr/mcperr/adapters/gosdk"
	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/internal/testrig/realistic/ghserver"
	"github.com/mcperr/mcperr/internal/testrig/realistic/suite"
)

const issue1 = `{"number":1,"title":"Checkout fails on Safari","state":"open","user":{"login":"ana"}}`
const issue2 = `{"number":2,"title":"Typo on the cart page","state":"closed","user":{"login":"bo"}}`

// cases is the table of calls; ${upstream} is the upstream's URL.
var cases = []suite.Case{
	// get_issue, with issue_number as a number or a numeric string
	{Name: "get_issue", Tool: "get_issue", Args: map[string]any{"owner": "acme", "repo": "shop", "issue_number": 1},
		Bare: text(issue1)},
	{Name: "get_issue_number_string", Tool: "get_issue", Args: map[string]any{"owner": "acme", "repo": "shop", "issue_number": "1"},
		Bare: text(issue1)},
	{Name: "get_issue_no_owner", Tool: "get_issue", Args: map[string]any{"repo": "shop", "issue_number": 1},
		Bare: handBuilt("missing required parameter: owner"), Failure: suite.HandBuilt},
	{Name: "get_issue_number_not_numeric", Tool: "get_issue", Args: map[string]any{"owner": "acme", "repo": "shop", "issue_number": "one"},
		Bare: handBuilt(`parameter issue_number is not a number: "one"`), Failure: suite.HandBuilt},
	{Name: "get_issue_upstream_502", Tool: "get_issue", Args: map[string]any{"owner": "acme", "repo": "flaky", "issue_number": 1},
		Bare:    handBuilt("failed to get issue: GET ${upstream}/repos/acme/flaky/issues/1: 502 Server Error"),
		Failure: suite.HandBuilt, Secrets: []string{"${upstream}"}},
	{Name: "get_issue_not_found", Tool: "get_issue", Args: map[string]any{"owner": "acme", "repo": "shop", "issue_number": 404},
		Bare:    rpc("issue #404 not found in acme/shop: GET ${upstream}/repos/acme/shop/issues/404: 404 Not Found"),
		Failure: suite.Returns, Enforced: codes.InternalError, Secrets: []string{"${upstream}"},
		Logged: "GET ${upstream}/repos/acme/shop/issues/404: 404 Not Found"},
	{Name: "get_issue_not_found_number_string", Tool: "get_issue", Args: map[string]any{"owner": "acme", "repo": "shop", "issue_number": "404"},
		Bare:    rpc("issue #404 not found in acme/shop: GET ${upstream}/repos/acme/shop/issues/404: 404 Not Found"),
		Failure: suite.Returns, Enforced: codes.ValidationError, Fields: []string{"issue_number"}, Secrets: []string{"${upstream}"}},

	// list_issues, with per_page as a number or a numeric string
	{Name: "list_issues", Tool: "list_issues", Args: map[string]any{"owner": "acme", "repo": "shop", "state": "all", "per_page": 1},
		Bare: text("[" + issue1 + "]")},
	{Name: "list_issues_per_page_string", Tool: "list_issues", Args: map[string]any{"owner": "acme", "repo": "shop", "state": "all", "per_page": "1"},
		Bare: text("[" + issue1 + "]")},
	{Name: "list_issues_closed", Tool: "list_issues", Args: map[string]any{"owner": "acme", "repo": "shop", "state": "closed"},
		Bare: text("[" + issue2 + "]")},
	{Name: "list_issues_per_page_not_numeric", Tool: "list_issues", Args: map[string]any{"owner": "acme", "repo": "shop", "per_page": "ten"},
		Bare: handBuilt(`parameter per_page is not a number: "ten"`), Failure: suite.HandBuilt},
	{Name: "list_issues_repo_not_found", Tool: "list_issues", Args: map[string]any{"owner": "acme", "repo": "ghost"},
		Bare:    handBuilt("failed to list issues: GET ${upstream}/repos/acme/ghost/issues?per_page=30&state=open: 404 Not Found"),
		Failure: suite.HandBuilt, Secrets: []string{"${upstream}"}},

	// create_comment, with its own answer to an unknown argument
	{Name: "create_comment", Tool: "create_comment", Args: map[string]any{"owner": "acme", "repo": "shop", "issue_number": 1, "body": "Reproduced on Safari 17."},
		Bare: text(`{"id":1001,"body":"Reproduced on Safari 17.","html_url":"https://github.example/acme/shop/issues/1#issuecomment-1001"}`)},
	{Name: "create_comment_unknown_argument", Tool: "create_comment", Args: map[string]any{"owner": "acme", "repo": "shop", "issue_number": 1, "body": "x", "bdy": "x"},
		Bare:    rpc(`unknown argument "bdy"; valid arguments: body, issue_number, owner, repo`),
		Failure: suite.Returns, Enforced: codes.ValidationError, Fields: []string{"bdy"}},
	{Name: "create_comment_blank_body", Tool: "create_comment", Args: map[string]any{"owner": "acme", "repo": "shop", "issue_number": 2, "body": "   "},
		Bare:    handBuilt("failed to create comment: POST ${upstream}/repos/acme/shop/issues/2/comments: 422 Validation Failed"),
		Failure: suite.HandBuilt, Secrets: []string{"${upstream}"}},
	{Name: "create_comment_issue_not_found", Tool: "create_comment", Args: map[string]any{"owner": "acme", "repo": "shop", "issue_number": 7, "body": "Still there?"},
		Bare:    rpc("POST ${upstream}/repos/acme/shop/issues/7/comments: 404 Not Found"),
		Failure: suite.Returns, Enforced: codes.InternalError, Secrets: []string{"${upstream}"},
		Logged: "POST ${upstream}/repos/acme/shop/issues/7/comments: 404 Not Found"},
	{Name: "create_comment_second", Tool: "create_comment", Args: map[string]any{"owner": "acme", "repo": "shop", "issue_number": "2", "body": "Fixed in #3."},
		Bare: text(`{"id":1002,"body":"Fixed in #3.","html_url":"https://github.example/acme/shop/issues/2#issuecomment-1002"}`)},
}

// TestServer runs the table on the bare server and with mcperr installed.
func TestServer(t *testing.T) {
	up := &upstream{}
	hs := httptest.NewServer(up)
	t.Cleanup(hs.Close)
	start := func(t *testing.T, cfg suite.Config, install bool, logger *slog.Logger) suite.Client {
		up.reset()
		opts := ghserver.Options{HTTPClient: hs.Client(), Token: token}
		if install {
			p, err := filter.New(cfg.Pipeline(logger)...)
			if err != nil {
				t.Fatal(err)
			}
			opts.Setup = func(s *mcp.Server) error { return gosdk.Install(s, p) }
			opts.Middleware = func(tool string, h mcp.ToolHandler) mcp.ToolHandler {
				if _, ok := cfg.Tools[tool]; ok {
					return gosdk.WrapRaw(h)
				}
				return h
			}
		}
		s, err := ghserver.New(hs.URL, opts)
		if err != nil {
			t.Fatal(err)
		}
		return suite.ConnectGoSDK(t, s)
	}
	suite.Run(t, cases, map[string]string{"upstream": hs.URL}, start,
		append(suite.Modes(), suite.PerTool("get_issue")...)...)
}

const meta = `{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"gh","version":"0.9.2"}},`

// text is the JSON of a result with one text block.
func text(s string) string {
	return meta + `"content":[{"type":"text","text":` + suite.JSONString(s) + `}],"resultType":"complete"}`
}

// handBuilt is the JSON of an error result the handler built with text.
func handBuilt(s string) string {
	return meta + `"content":[{"type":"text","text":` + suite.JSONString(s) + `}],"isError":true,"resultType":"complete"}`
}

// rpc is the JSON-RPC error go-sdk sends for an error a raw handler
// returns: code 0 and the error's text.
func rpc(message string) string { return suite.RPC(0, message) }
