package nilness_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/domain"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/internal/nilness"
)

type nilFilter struct{}

func (*nilFilter) Catch(context.Context, filter.Call, error) (*filter.Response, error) {
	return nil, nil
}

func TestCheckFilters(t *testing.T) {
	good := filter.Catch(func(context.Context, filter.Call, error) (*filter.Response, error) { return nil, nil })
	if err := nilness.CheckFilters[filter.Filter]("WithFilters", nil); err != nil {
		t.Errorf("no filters: %v", err)
	}
	if err := nilness.CheckFilters("WithFilters", []filter.Filter{good, &nilFilter{}}); err != nil {
		t.Errorf("good filters: %v", err)
	}
	for i, bad := range []filter.Filter{nil, filter.Catch[error](nil), (*nilFilter)(nil)} {
		err := nilness.CheckFilters("gosdk.WithFilters", []filter.Filter{good, bad})
		var de *codes.DefinitionError
		if !errors.As(err, &de) || de.Mistake != codes.NilValue ||
			!strings.Contains(de.Reason, "filter 1 given to gosdk.WithFilters") {
			t.Errorf("bad filter %d: CheckFilters = %v, want a NIL_VALUE definition error naming filter 1", i, err)
		}
	}
	for _, tc := range []struct {
		f    filter.Filter
		want codes.Mistake
		says string
	}{
		{filter.Is(nil, filter.Response{Message: "No such order."}), codes.NilValue, "filter.Is needs the sentinel error"},
		{filter.Is(errors.New("no rows"), filter.Response{}), codes.InvalidOption, "filter.Is needs a Response with the message"},
		{filter.Catch[*domain.NotFound](nil), codes.NilValue, "filter.Catch needs a function"},
	} {
		err := nilness.CheckFilters("WithGlobalFilters", []filter.Filter{good, tc.f})
		var de *codes.DefinitionError
		if !errors.As(err, &de) || de.Mistake != tc.want || !strings.Contains(de.Reason, tc.says) {
			t.Errorf("CheckFilters = %v, want a %s definition error saying %q", err, tc.want, tc.says)
		}
	}
}
