package protocol

import (
	"fmt"
	"net"
	"net/http"
	"runtime"
	"strconv"
	"sync"
	"time"

	"github.com/ldhub/ldhub/sparqlsvc/eval"
)

// Limits bound every query an endpoint runs. Zero fields take the defaults below, which suit an anonymous caller
// of a public hub; an endpoint may give credentialed callers larger ones (api/server does).
type Limits struct {
	// Timeout ends a query, including the time spent sending its answer.
	Timeout time.Duration
	// MaxMemory is the budget, in bytes, of what a query may hold: rows kept by ORDER BY, GROUP BY, DISTINCT,
	// MINUS and materialised operands, CONSTRUCT's duplicate set, memoised path closures and computed terms.
	// Answers themselves stream to the client and are not held.
	MaxMemory int64
	// MaxRows bounds the rows a query may hold at once, whatever their size.
	MaxRows int
	// MaxResults bounds the solutions (SELECT) or triples (CONSTRUCT, DESCRIBE) of one answer; an answer cut
	// there says so (see Truncated).
	MaxResults int
}

// Defaults of Limits, documented in docs/reliability.md.
const (
	DefaultTimeout    = 30 * time.Second
	DefaultMaxMemory  = 64 << 20
	DefaultMaxRows    = 2_000_000
	DefaultMaxResults = 100_000
)

// CredentialedLimits are what a server may give callers with a valid credential: they are accountable, so a
// longer time limit, a larger budget and longer answers.
var CredentialedLimits = Limits{Timeout: 2 * time.Minute, MaxMemory: 256 << 20, MaxRows: 8_000_000, MaxResults: 1_000_000}

func (l Limits) withDefaults() Limits {
	if l.Timeout <= 0 {
		l.Timeout = DefaultTimeout
	}
	if l.MaxMemory <= 0 {
		l.MaxMemory = DefaultMaxMemory
	}
	if l.MaxRows <= 0 {
		l.MaxRows = DefaultMaxRows
	}
	if l.MaxResults <= 0 {
		l.MaxResults = DefaultMaxResults
	}
	return l
}

// Gate bounds the queries running at once, in the whole server and per client address, so that one client's
// heavy queries cannot take every slot (nor, with the per-query budget, all memory) from the others' lookups.
// The last reserve slots go only to addresses that hold none: without them four addresses with two heavy queries
// each filled all eight, and every other client's lookup was refused until one ended; now an address running
// none gets in while any slot is free, and shutting the others out takes five addresses (with the defaults).
// A query that finds no free slot is refused at once with 503 and Retry-After, not queued. One Gate is shared by
// every endpoint of a server.
type Gate struct {
	max, perClient int
	reserve        int // slots kept for addresses that hold none
	client         func(*http.Request) string
	mu             sync.Mutex
	running        int
	byClient       map[string]int
	// cores is the server's pool of core tokens (eval.Cores): a query admitted here may evaluate a large scan on a
	// second core only while one is idle, so parallel queries never take more cores than the machine has.
	cores *eval.Cores
	// memory is the budget the gate's queries share (eval.Memory), besides each one's own.
	memory *eval.Memory
}

// Memory is the memory budget the gate's queries share (nil for a nil gate: only each query's own).
func (g *Gate) Memory() *eval.Memory {
	if g == nil {
		return nil
	}
	return g.memory
}

// SetMemory sets the budget the gate's queries share, in bytes (0: DefaultServerMemory). Call it before the gate
// admits a query.
func (g *Gate) SetMemory(n int64) {
	if n <= 0 {
		n = DefaultServerMemory
	}
	g.memory = eval.NewMemory(n)
}

// Cores is the pool of core tokens the gate's queries share (nil for a nil gate: every query on one goroutine).
func (g *Gate) Cores() *eval.Cores {
	if g == nil {
		return nil
	}
	return g.cores
}

// Defaults of NewGate: a query mostly uses one core, so a few per core keep lookups answering quickly.
// DefaultServerMemory is the memory the queries running at once may hold between them (eval.Memory): four
// anonymous budgets, or one credentialed. Without it the bound was the slots times the per-query budget (8 × 64
// MiB, measured at 782 MiB of heap with the collector's garbage); ldhub serve --sparql-memory sets it.
const (
	DefaultMaxConcurrent = 8
	DefaultPerClient     = 2
	DefaultServerMemory  = 256 << 20
)

// NewGate returns a gate admitting max queries at once, perClient of them from one address, the last quarter of
// max only to an address running none; zero takes the defaults above. client names the address a request comes from (behind a proxy, the forwarded client's); nil
// takes the peer's IP.
func NewGate(max, perClient int, client func(*http.Request) string) *Gate {
	if client == nil {
		client = clientOf
	}
	if max <= 0 {
		max = DefaultMaxConcurrent
	}
	if perClient <= 0 {
		perClient = DefaultPerClient
	}
	return &Gate{max: max, perClient: perClient, reserve: max / 4, client: client, byClient: map[string]int{}, cores: eval.NewCores(runtime.GOMAXPROCS(0)),
		memory: eval.NewMemory(DefaultServerMemory)}
}

// enter admits a query from r's client, returning the function that ends it, or false when the server or the
// client is at its limit, or the client already runs a query and only the reserved slots are free.
func (g *Gate) enter(r *http.Request) (func(), bool) {
	client := g.client(r)
	g.mu.Lock()
	defer g.mu.Unlock()
	held := g.byClient[client]
	if g.running >= g.max || held >= g.perClient || held > 0 && g.max-g.running <= g.reserve {
		return nil, false
	}
	g.running++
	g.byClient[client]++
	return func() {
		g.mu.Lock()
		defer g.mu.Unlock()
		g.running--
		if g.byClient[client]--; g.byClient[client] <= 0 {
			delete(g.byClient, client)
		}
	}, true
}

// clientOf is the address a request counts against: the peer's IP without its port.
func clientOf(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// serverMemoryReason says why a query stopped at the budget the gate's queries share: not its own size, so retry.
func serverMemoryReason(g *Gate) string {
	return fmt.Sprintf("the queries running on this server hold its memory for queries (%d MiB); retry shortly", g.Memory().Max()>>20)
}

// retryAfter is the Retry-After a refused query gets: long enough for a typical query to finish.
var retryAfter = strconv.Itoa(2)
