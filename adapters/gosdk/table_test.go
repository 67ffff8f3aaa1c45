package gosdk_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"testing"

	"github.com/mcperr/mcperr/internal/testrig/adaptertest"
)

// TestTable runs every case of the shared table through a real client and a
// real server, for every way of putting mcperr on the server and every
// protocol version that changes the shape of a result.
func TestTable(t *testing.T) {
	for _, st := range styles {
		for _, proto := range protocols {
			t.Run(st.name+"/"+proto.name, func(t *testing.T) {
				var log adaptertest.Log
				if st.defaults {
					old := slog.Default()
					slog.SetDefault(log.Logger())
					defer slog.SetDefault(old)
				}
				s := newServer(st, newPipeline(t, &log))
				cs := connect(t, s, proto.version)
				runTable(t, st, cs, &log, adaptertest.Calls.Load)
			})
		}
	}
}

// TestUntouched checks that a successful result, and an error result a
// handler built itself, reach the client byte for byte as the SDK alone
// sends them.
func TestUntouched(t *testing.T) {
	ctx := context.Background()
	var untouched []adaptertest.Case
	for _, c := range tableCases() {
		if c.Want.Code == "" && !c.Want.ProtocolError {
			untouched = append(untouched, c)
		}
	}
	untouched = append(untouched, adaptertest.Case{Name: "divide", Tool: "divide", Args: map[string]any{"a": 6, "b": 3}})
	for _, st := range styles {
		for _, proto := range protocols {
			t.Run(st.name+"/"+proto.name, func(t *testing.T) {
				var log adaptertest.Log
				bareCS := connect(t, newServer(st, nil), proto.version)
				cs := connect(t, newServer(st, newPipeline(t, &log)), proto.version)
				for _, c := range untouched {
					want, _ := call(ctx, bareCS, c)
					got, _ := call(ctx, cs, c)
					if want.ProtocolErr != nil || got.ProtocolErr != nil {
						t.Fatalf("%s: protocol error: bare %v, with mcperr %v", c.Name, want.ProtocolErr, got.ProtocolErr)
					}
					if !bytes.Equal(got.Raw, want.Raw) {
						t.Errorf("%s: with mcperr the client got\n%s\nthe SDK alone sends\n%s", c.Name, got.Raw, want.Raw)
					}
				}
				if recs := log.Records(t); len(recs) != 0 {
					t.Errorf("untouched calls wrote log records: %v", recs)
				}
			})
		}
	}
}

// rawJSON is a helper for messages.
func rawJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
