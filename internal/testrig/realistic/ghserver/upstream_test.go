package ghserver_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
)

// token is the token the upstream accepts.
const token = "ghp_realisticToken0000000000000000000"

// upstream is a GitHub-like API with one repository, acme/shop, whose
// issues 1 and 2 exist; acme/flaky answers 502 to everything.
type upstream struct {
	mu     sync.Mutex
	nextID int64
}

// reset forgets the comments created.
func (u *upstream) reset() {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.nextID = 1001
}

func (u *upstream) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	reply := func(status int, v any) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(v)
	}
	notFound := func() {
		reply(http.StatusNotFound, map[string]string{"message": "Not Found", "documentation_url": "https://docs.github.com/rest"})
	}
	if r.Header.Get("Authorization") != "Bearer "+token {
		reply(http.StatusUnauthorized, map[string]string{"message": "Bad credentials"})
		return
	}
	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	if len(parts) < 4 || parts[0] != "repos" || parts[3] != "issues" {
		notFound()
		return
	}
	switch repo := parts[1] + "/" + parts[2]; {
	case repo == "acme/flaky":
		reply(http.StatusBadGateway, map[string]string{"message": "Server Error"})
		return
	case repo != "acme/shop":
		notFound()
		return
	}
	issues := map[string]map[string]any{
		"1": {"number": 1, "title": "Checkout fails on Safari", "state": "open", "user": map[string]string{"login": "ana"}},
		"2": {"number": 2, "title": "Typo on the cart page", "state": "closed", "user": map[string]string{"login": "bo"}},
	}
	switch {
	case len(parts) == 4 && r.Method == http.MethodGet:
		var out []map[string]any
		for _, k := range []string{"1", "2"} {
			if s := r.URL.Query().Get("state"); s == "all" || s == issues[k]["state"] {
				out = append(out, issues[k])
			}
		}
		var n int
		if _, err := fmt.Sscan(r.URL.Query().Get("per_page"), &n); err == nil && n < len(out) {
			out = out[:n]
		}
		reply(http.StatusOK, out)
	case len(parts) == 5 && r.Method == http.MethodGet && issues[parts[4]] != nil:
		reply(http.StatusOK, issues[parts[4]])
	case len(parts) == 6 && parts[5] == "comments" && r.Method == http.MethodPost && issues[parts[4]] != nil:
		var in struct {
			Body string `json:"body"`
		}
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil || in.Body == "" {
			reply(http.StatusUnprocessableEntity, map[string]string{"message": "Validation Failed"})
			return
		}
		u.mu.Lock()
		id := u.nextID
		u.nextID++
		u.mu.Unlock()
		reply(http.StatusCreated, map[string]any{"id": id, "body": in.Body, "html_url": fmt.Sprintf("https://github.example/acme/shop/issues/%s#issuecomment-%d", parts[4], id)})
	default:
		notFound()
	}
}
