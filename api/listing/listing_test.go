package listing

import (
	"errors"
	"net/url"
	"testing"

	"github.com/ldhub/ldhub/httpx/apierr"
)

var groupSort = []string{"name", "description", "createdOn", "modifiedOn"}

func TestParse(t *testing.T) {
	cases := []struct {
		query string
		want  Params
		bad   bool
	}{
		{"", Params{SortBy: "name", PageSize: 20}, false},
		{"searchText=+voc+&sortBy=createdOn&sortDirection=desc&page=2&pageSize=100",
			Params{SearchText: "voc", SortBy: "createdOn", Descending: true, Page: 2, PageSize: 100}, false},
		{"pageSize=0", Params{}, true},
		{"pageSize=101", Params{}, true},
		{"pageSize=ten", Params{}, true},
		{"page=-1", Params{}, true},
		{"sortBy=owner", Params{}, true},
		{"sortDirection=up", Params{}, true},
	}
	for _, c := range cases {
		q, _ := url.ParseQuery(c.query)
		got, err := Parse(q, groupSort)
		if c.bad {
			var e *apierr.Error
			if !errors.As(err, &e) || e.Status != 400 || e.Message == "" {
				t.Errorf("%q: want a 400 with a message, got %v", c.query, err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%q: got %+v, %v; want %+v", c.query, got, err, c.want)
		}
	}
}

func TestWindow(t *testing.T) {
	cases := []struct{ page, size, total, from, to int }{
		{0, 20, 5, 0, 5}, {1, 2, 5, 2, 4}, {2, 2, 5, 4, 5}, {3, 2, 5, 5, 5}, {1 << 40, 100, 5, 5, 5},
	}
	for _, c := range cases {
		f, to := Params{Page: c.page, PageSize: c.size}.Window(c.total)
		if f != c.from || to != c.to {
			t.Errorf("%+v: got [%d,%d)", c, f, to)
		}
	}
}
