// Package layers holds the test that keeps ldhub's import graph inside the table of docs/design.md ("Who may
// import whom"): the document is the source of truth, and an import it does not allow fails `make test`.
package layers
