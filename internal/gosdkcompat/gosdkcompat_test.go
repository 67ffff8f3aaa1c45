package gosdkcompat_test

import (
	"errors"
	"testing"

	"github.com/mcperr/mcperr/internal/gosdkcompat"
)

func TestProtocolVersions(t *testing.T) {
	vs := gosdkcompat.ProtocolVersions()
	if len(vs) == 0 || len(vs) > 2 {
		t.Fatalf("ProtocolVersions() = %q, want one or two versions", vs)
	}
	for _, v := range vs {
		if _, err := gosdkcompat.ClientOptions(v); err != nil {
			t.Errorf("ClientOptions(%q), a version ProtocolVersions gives: %v", v, err)
		}
	}
	if len(vs) == 2 && !(vs[0] > vs[1]) {
		t.Errorf("ProtocolVersions() = %q, want newest first", vs)
	}
}

func TestClientOptions(t *testing.T) {
	if opts, err := gosdkcompat.ClientOptions(""); opts != nil || err != nil {
		t.Errorf(`ClientOptions("") = %v, %v, want nil options`, opts, err)
	}
	opts, err := gosdkcompat.ClientOptions("2024-11-05")
	switch {
	case gosdkcompat.CanChooseVersion() && (err != nil || opts == nil):
		t.Errorf("ClientOptions on a go-sdk that can choose: %v, %v", opts, err)
	case !gosdkcompat.CanChooseVersion() && !errors.Is(err, gosdkcompat.ErrNoVersionChoice):
		t.Errorf("ClientOptions on a go-sdk that cannot choose: %v, want ErrNoVersionChoice", err)
	}
}
