package sqlitefilter

import (
	"strconv"
	"strings"
	"unicode"

	"modernc.org/sqlite"

	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/filter"
)

// maxIdentifier bounds an identifier the pack sends.
const maxIdentifier = 128

// reported returns what SQLite wrote after marker in e's text, without
// the " (code)" the driver appends; false if the text does not have that
// form.
func reported(e *sqlite.Error, marker string) (string, bool) {
	msg := e.Error()
	i := strings.Index(msg, marker)
	if i < 0 {
		return "", false
	}
	return strings.CutSuffix(msg[i+len(marker):], " ("+strconv.Itoa(e.Code())+")")
}

// identifier reports whether s is a plain SQL identifier: a letter or '_'
// then letters, digits, '_' or '$', at most maxIdentifier bytes.
func identifier(s string) bool {
	if s == "" || len(s) > maxIdentifier {
		return false
	}
	for i, r := range s {
		switch {
		case r == '_' || unicode.IsLetter(r):
		case i > 0 && (r == '$' || unicode.IsDigit(r)):
		default:
			return false
		}
	}
	return true
}

// column splits "table.column" into two identifiers.
func column(s string) (table, col string, ok bool) {
	table, col, ok = strings.Cut(s, ".")
	if !ok || !identifier(table) || !identifier(col) {
		return "", "", false
	}
	return table, col, true
}

// unique is what a UNIQUE or PRIMARY KEY violation names: the columns of
// one table, or an index on expressions; nothing when SQLite's report
// holds anything but identifiers.
type unique struct {
	name    string // as SQLite reports it, for Constraint
	table   string
	columns []string
	index   string
}

// parseUnique reads the identifiers after "UNIQUE constraint failed: ":
// "t.a" or "t.a, t.b", or "index 'name'".
func parseUnique(e *sqlite.Error) unique {
	s, ok := reported(e, uniqueMarker)
	if !ok {
		return unique{}
	}
	if name, ok := strings.CutPrefix(s, "index '"); ok {
		if name, ok = strings.CutSuffix(name, "'"); ok && identifier(name) {
			return unique{name: name, index: name}
		}
		return unique{}
	}
	u := unique{name: s}
	for _, item := range strings.Split(s, ", ") {
		table, col, ok := column(item)
		if !ok || u.table != "" && table != u.table {
			return unique{}
		}
		u.table = table
		u.columns = append(u.columns, col)
	}
	return u
}

// response is the pack's answer to the violation u names.
func (u unique) response() *filter.Response {
	r := &filter.Response{Code: codes.Conflict, Message: conflictText}
	switch {
	case u.index != "":
		r.Message = "A record with this value already exists (index " + u.index + "); choose another value."
		r.Details = map[string]any{"index": u.index}
	case len(u.columns) == 1:
		r.Message = "A record with this value already exists (" + u.name + "); choose another value."
		r.Details = map[string]any{"table": u.table, "columns": u.columns}
	case len(u.columns) > 1:
		r.Message = "A record with these values already exists (" + u.name + "); choose other values."
		r.Details = map[string]any{"table": u.table, "columns": u.columns}
	}
	return r
}

// parseCheck returns the name after "CHECK constraint failed: ", or ""
// when SQLite reports no name there (it writes the expression of a check
// without a name).
func parseCheck(e *sqlite.Error) string {
	s, ok := reported(e, checkMarker)
	if !ok || !identifier(s) {
		return ""
	}
	return s
}

// parseNotNull returns the "table.column" after "NOT NULL constraint
// failed: ", or "" when it is not that.
func parseNotNull(e *sqlite.Error) string {
	s, ok := reported(e, notNullMarker)
	if !ok {
		return ""
	}
	if _, _, ok := column(s); !ok {
		return ""
	}
	return s
}
