// Package listing parses and checks the paging, sorting and search parameters of the list routes (api.md §4.6, §8,
// decisions.md "Listing"): page ≥ 0, pageSize 1–100 (default 20), sortBy from a fixed set, sortDirection ASC/DESC.
package listing

import (
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/ldhub/ldhub/httpx/apierr"
)

// Params are the validated listing parameters.
type Params struct {
	SearchText string
	SortBy     string
	Descending bool
	Page       int
	PageSize   int
}

const (
	DefaultPageSize = 20
	MaxPageSize     = 100
)

// Parse reads the parameters from q. sortFields lists the accepted sortBy values; the first is the default.
func Parse(q url.Values, sortFields []string) (Params, error) {
	p := Params{SearchText: strings.TrimSpace(q.Get("searchText")), SortBy: sortFields[0], PageSize: DefaultPageSize}
	if v := q.Get("sortBy"); v != "" {
		if !slices.Contains(sortFields, v) {
			return p, bad("sortBy must be one of " + strings.Join(sortFields, ", ") + ", not " + strconv.Quote(v))
		}
		p.SortBy = v
	}
	switch d := strings.ToUpper(q.Get("sortDirection")); d {
	case "", "ASC":
	case "DESC":
		p.Descending = true
	default:
		return p, bad("sortDirection must be ASC or DESC, not " + strconv.Quote(q.Get("sortDirection")))
	}
	if v := q.Get("page"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return p, bad("page must be a whole number ≥ 0, not " + strconv.Quote(v))
		}
		p.Page = n
	}
	if v := q.Get("pageSize"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > MaxPageSize {
			return p, bad("pageSize must be a whole number from 1 to 100, not " + strconv.Quote(v))
		}
		p.PageSize = n
	}
	return p, nil
}

// Window returns the [from, to) slice bounds of the page within total items.
func (p Params) Window(total int) (from, to int) {
	// Comparing against total/PageSize first keeps Page*PageSize from overflowing on absurd page numbers.
	if p.PageSize <= 0 || p.Page > total/p.PageSize {
		return total, total
	}
	from = p.Page * p.PageSize
	return from, min(from+p.PageSize, total)
}

func bad(msg string) error { return apierr.New(http.StatusBadRequest, msg) }
