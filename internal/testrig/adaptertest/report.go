package adaptertest

import (
	"strings"
	"testing"

	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/filter"
)

// CheckReported checks the records one call of tool left in report-only
// mode: none for a success; for a failure, exactly one, saying what mcperr
// would have sent. enforced is the code enforcing would send, or "" for an
// error result the handler built itself, which is reported as it is.
func CheckReported(t testing.TB, tool string, failed bool, enforced codes.Code, records []map[string]any) {
	t.Helper()
	if !failed {
		if len(records) != 0 {
			t.Errorf("%s: a success wrote %d records: %v", tool, len(records), records)
		}
		return
	}
	if len(records) != 1 {
		t.Errorf("%s: %d records, want one: %v", tool, len(records), records)
		return
	}
	rec := records[0]
	want := enforced
	if want == "" {
		want = codes.ToolFailed
	}
	masked := want == codes.InternalError
	if rec["report_only"] != true || rec["code"] != string(want) || rec["masked"] != masked {
		t.Errorf("%s: record %v, want report_only, code %s, masked %v", tool, rec, want, masked)
	}
	would, _ := rec["would_send"].(string)
	ref, _ := rec["ref"].(string)
	if masked && (ref == "" || would != `Internal error in tool "`+tool+`" (ref: `+ref+`).`) {
		t.Errorf("%s: would_send %q with ref %q, want the masked text with the record's ref", tool, would, ref)
	}
	if !masked && would == "" {
		t.Errorf("%s: no would_send in %v", tool, rec)
	}
	if enforced == "" && (rec["hand_built"] != true || ref == "") {
		t.Errorf("%s: the record of a hand-built result has no hand_built or ref: %v", tool, rec)
	}
}

// CheckAnswered checks one call of tool in report-only mode whose error was
// written for mcperr (a ToolError, a domain error): got, what the client
// received as JSON, is mcperr's answer with the code enforced, and the one
// record says it was sent, not reported.
func CheckAnswered(t testing.TB, tool, got string, enforced codes.Code, records []map[string]any) {
	t.Helper()
	if !strings.Contains(got, `"code":"`+string(enforced)+`"`) || !strings.Contains(got, filter.MetaKey) {
		t.Errorf("%s: report-only sent %s, want mcperr's answer with code %s", tool, got, enforced)
	}
	if len(records) != 1 || records[0]["report_only"] != nil || records[0]["code"] != string(enforced) {
		t.Errorf("%s: records %v, want one of an answered failure with code %s", tool, records, enforced)
	}
}
