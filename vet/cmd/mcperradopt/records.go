package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// A record is one of mcperr's records of a failure, its attributes by key.
type record map[string]any

// failureMessages are the messages of mcperr's records of a failure, one
// per failed request (or attempt of a retried one).
var failureMessages = map[string]bool{
	"tool call failed":     true,
	"resource read failed": true,
	"prompt get failed":    true,
	"completion failed":    true,
}

// str returns the attribute key as text: a JSON string, or a text
// handler's value.
func (r record) str(key string) string {
	switch v := r[key].(type) {
	case string:
		return v
	case nil:
		return ""
	default:
		return fmt.Sprint(v)
	}
}

func (r record) is(key string) bool { return r.str(key) == "true" }

// target names what failed: the tool, or a resource, prompt or completion.
func (r record) target() string {
	switch {
	case r.str("tool") != "":
		return r.str("tool")
	case r.str("resource") != "":
		return "resource " + r.str("resource")
	case r.str("prompt") != "":
		return "prompt " + r.str("prompt")
	}
	return "completion"
}

// readRecords returns the records of failures in r, one a line, as
// slog.NewJSONHandler or slog.NewTextHandler writes them; other lines are
// skipped. A record of an attempt the server called again (retry_in) is
// left out: the request's failure is its last attempt's.
func readRecords(r io.Reader) ([]record, error) {
	var out []record
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		var rec record
		if strings.HasPrefix(line, "{") {
			if json.Unmarshal([]byte(line), &rec) != nil {
				continue
			}
		} else if rec = parseText(line); rec == nil {
			continue
		}
		if failureMessages[rec.str("msg")] && rec.str("code") != "" && rec.str("retry_in") == "" {
			out = append(out, rec)
		}
	}
	return out, sc.Err()
}

// parseText reads a line of key=value pairs, as slog.NewTextHandler writes
// them (a value with spaces or quotes is quoted as strconv.Quote does); nil
// if the line is not one.
func parseText(line string) record {
	rec := record{}
	for line != "" {
		eq := strings.IndexByte(line, '=')
		if eq <= 0 || strings.ContainsAny(line[:eq], " \"") {
			return nil
		}
		key := line[:eq]
		line = line[eq+1:]
		var val string
		if strings.HasPrefix(line, `"`) {
			q, err := strconv.QuotedPrefix(line)
			if err != nil {
				return nil
			}
			val, _ = strconv.Unquote(q)
			line = line[len(q):]
		} else if sp := strings.IndexByte(line, ' '); sp >= 0 {
			val, line = line[:sp], line[sp:]
		} else {
			val, line = line, ""
		}
		rec[key] = val
		line = strings.TrimLeft(line, " ")
	}
	return rec
}
