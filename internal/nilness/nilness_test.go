package nilness

import (
	"errors"
	"testing"
)

type filterFunc func()

type counter struct{ _ int }

func TestIsNil(t *testing.T) {
	var fn filterFunc
	var p *counter
	var m map[string]int
	for _, v := range []any{nil, fn, p, m, []int(nil), (chan int)(nil)} {
		if !IsNil(v) {
			t.Errorf("IsNil(%#v) = false", v)
		}
	}
	for _, v := range []any{filterFunc(func() {}), &counter{}, counter{}, 0, "", errors.New("x")} {
		if IsNil(v) {
			t.Errorf("IsNil(%#v) = true", v)
		}
	}
}
