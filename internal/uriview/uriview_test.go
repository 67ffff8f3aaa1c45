package uriview

import "testing"

func TestSafe(t *testing.T) {
	for _, tc := range []struct {
		uri       string
		keepQuery bool
		want      string
	}{
		{"file:///vault.txt", false, "file:///vault.txt"},
		{"db://app:hunter2@db.internal:5432/orders", true, "db://app:‹×›@db.internal:5432/orders"},
		{"https://api.example.com/issues/7?token=hunter2#frag", false, "https://api.example.com/issues/7?‹×›#‹×›"},
		{"https://api.example.com/issues/7?page=2", true, "https://api.example.com/issues/7?page=2"},
		{"orders://ord_1", false, "orders://ord_1"},
		{"db://app:hun%zzter2@host", false, "db:‹×›"},
		{"%zz", false, "‹×›"},
	} {
		if got := Safe(tc.uri, tc.keepQuery); got != tc.want {
			t.Errorf("Safe(%q, %v) = %q, want %q", tc.uri, tc.keepQuery, got, tc.want)
		}
	}
}
