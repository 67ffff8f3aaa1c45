// Package gosdkcompat lets mcperr's tests and test kit run on every go-sdk
// release mcperr supports, from v1.3.0: it reaches, through reflection or a
// probe, the few things older releases lack, and says so where a release
// cannot give them. It holds no error policy and is never linked into a
// server's adapter.
package gosdkcompat

import (
	"context"
	"errors"
	"reflect"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ErrNoVersionChoice is returned where the go-sdk in the build cannot ask
// for a protocol version: ClientSessionOptions has no exported
// ProtocolVersion field before v1.8.0.
var ErrNoVersionChoice = errors.New("this go-sdk cannot ask for a protocol version: ClientSessionOptions.ProtocolVersion arrived in go-sdk v1.8.0")

// ClientOptions returns the options of a client session that asks for
// protocol version v, or nil options for v == "", the client's newest.
// Where the client cannot ask for a version, v must be the one it speaks.
func ClientOptions(v string) (*mcp.ClientSessionOptions, error) {
	if v == "" {
		return nil, nil
	}
	opts := &mcp.ClientSessionOptions{}
	if !setVersion(opts, v) {
		if v == negotiatedOnce() {
			return nil, nil
		}
		return nil, ErrNoVersionChoice
	}
	return opts, nil
}

// setVersion sets opts.ProtocolVersion to v, and reports false where the
// field does not exist.
func setVersion(opts *mcp.ClientSessionOptions, v string) bool {
	f := reflect.ValueOf(opts).Elem().FieldByName("ProtocolVersion")
	if !f.IsValid() || f.Kind() != reflect.String || !f.CanSet() {
		return false
	}
	f.SetString(v)
	return true
}

// CanChooseVersion reports whether a client can ask for a protocol
// version, as go-sdk's client can from v1.8.0: the release mcperr's
// recorded figures and texts come from.
func CanChooseVersion() bool {
	return setVersion(&mcp.ClientSessionOptions{}, "2025-06-18")
}

var (
	defaultOnce    sync.Once
	defaultVersion string
)

// negotiatedOnce returns the version a client that asks for none speaks.
func negotiatedOnce() string {
	defaultOnce.Do(func() { defaultVersion = negotiate("") })
	return defaultVersion
}

// known are the MCP protocol versions, newest first. Those after
// lastInitialize begin sessions with server/discover.
var known = []string{"2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}

const lastInitialize = "2025-11-25"

var (
	versionsOnce sync.Once
	versions     []string
)

// ProtocolVersions returns the protocol versions a test should run a
// server under, newest first: the newest the go-sdk in the build speaks,
// and the newest it speaks with the initialize handshake, if that is
// another. Where a client cannot choose, it is the one version the client
// asks for. It finds them once, by connecting in memory.
func ProtocolVersions() []string {
	versionsOnce.Do(func() {
		if !CanChooseVersion() {
			if v := negotiatedOnce(); v != "" {
				versions = []string{v}
			}
			return
		}
		var newest, initialize string
		for _, v := range known {
			if negotiate(v) != v {
				continue
			}
			if newest == "" {
				newest = v
			}
			if v <= lastInitialize {
				initialize = v
				break
			}
		}
		for _, v := range []string{newest, initialize} {
			if v != "" && (len(versions) == 0 || versions[0] != v) {
				versions = append(versions, v)
			}
		}
	})
	return append([]string(nil), versions...)
}

// negotiate connects a client asking for v to an empty server in memory
// and returns the version the session speaks, or "" if it cannot connect.
func negotiate(v string) string {
	var opts *mcp.ClientSessionOptions
	if v != "" {
		opts = &mcp.ClientSessionOptions{}
		if !setVersion(opts, v) {
			return ""
		}
	}
	ctx := context.Background()
	s := mcp.NewServer(&mcp.Implementation{Name: "probe", Version: "0"}, nil)
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Connect(ctx, st, nil)
	if err != nil {
		return ""
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "probe", Version: "0"}, nil).Connect(ctx, ct, opts)
	if err != nil {
		return ""
	}
	defer cs.Close()
	if r := cs.InitializeResult(); r != nil {
		return r.ProtocolVersion
	}
	return ""
}
