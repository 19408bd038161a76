package protocol

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"runtime"
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
	// Keep keeps the query's slot while anonymous clients wait for one (Gate): only a waiting query that keeps its
	// own takes it back. For an accountable caller, whose credential the hub's administrator issued and can revoke.
	Keep bool
}

// Defaults of Limits, documented in docs/reliability.md.
const (
	DefaultTimeout    = 30 * time.Second
	DefaultMaxMemory  = 64 << 20
	DefaultMaxRows    = 2_000_000
	DefaultMaxResults = 100_000
)

// CredentialedLimits are what a server may give callers with a valid credential: they are accountable (every
// credential is issued by the hub's administrator, ldhub app/token create), so a longer time limit, a larger
// budget, longer answers, and a slot kept while anonymous clients wait (Keep).
var CredentialedLimits = Limits{Timeout: 2 * time.Minute, MaxMemory: 256 << 20, MaxRows: 8_000_000, MaxResults: 1_000_000, Keep: true}

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

// Gate bounds the queries running at once, in the whole server and per client, so that one client's heavy queries
// cannot take every slot (nor, with the per-query budget, all memory) from the others' lookups. A client is an
// IPv4 address or an IPv6 /64 (clientKey): one host is given a /64, so counting its addresses apart would give it
// as many slots as it cares to use.
//
// The last reserve slots go only to clients that hold none: without them four clients with two heavy queries each
// filled all eight, and every other client's lookup was refused until one ended. Five clients still fill them, so
// a lookup (isLookup: every triple pattern read from a constant subject or one it binds, rows bounded by the
// constants' fan-out) that finds no slot runs in a lane of its own beside them, one per client, under
// lookupLimits: a query whose plan is known cheap is answered however many heavy ones run, and a lookup that is
// not cheap after all costs at most the lane's short time limit. A query that finds neither waits for a slot
// (share.go) or is refused with 503 and Retry-After. One Gate is shared by every endpoint of a server.
//
// Clients are also counted by network (networkKey): an IPv6 /48 holds at most half the slots however many /64s
// its queries come from.
type Gate struct {
	max, perClient int
	perNetwork     int // slots one network (networkKey) holds at most
	reserve        int // slots kept for clients that hold none
	lookupMax      int // lookups running outside the slots, at most one per client
	client         func(*http.Request) string
	mu             sync.Mutex
	slots          []*slot           // the queries holding a slot (share.go)
	byClient       map[string]int    // slots held per client
	byNetwork      map[string]int    // slots held per network
	lookups        map[string]string // clients with a lookup running in the lane, to their network
	queue          []*waiter         // clients holding no slot that wait for one, oldest first (share.go)
	// slice is what a query runs at least before it yields its slot to a waiting client; patience how long the
	// client waits before one yields (share.go); wait how long a client waits for a slot at most.
	slice, patience, wait time.Duration
	// cores is the server's pool of core tokens (eval.Cores): a query admitted here may evaluate a large scan on a
	// second core only while one is idle, so parallel queries never take more cores than the machine has.
	cores *eval.Cores
	// memory is the budget the gate's queries share (eval.Memory), besides each one's own.
	memory *eval.Memory
	// heapFactor, when not 0, is SetHeapBound's factor; heapPrev the soft memory limit to give back.
	heapFactor float64
	heapPrev   int64
	heapRest   int64 // what the process holds besides the queries running now (boundHeap)
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

// lookupLimits bound a lookup that runs in the gate's lane, outside the slots. A lookup answers in milliseconds;
// the lane's limits are what a query taken for one costs at most, so they are short: a second, 8 MiB, and an
// answer of at most 10 000 items (a lookup's answer is its constants' fan-out).
// They are a function, not a package variable, so that no caller can change them for every server in the process.
func lookupLimits() Limits {
	return Limits{Timeout: time.Second, MaxMemory: 8 << 20, MaxRows: 100_000, MaxResults: 10_000}
}

// within is l bounded by m field by field (m's zero fields bound nothing).
func (l Limits) within(m Limits) Limits {
	l = l.withDefaults()
	if m.Timeout > 0 {
		l.Timeout = min(l.Timeout, m.Timeout)
	}
	if m.MaxMemory > 0 {
		l.MaxMemory = min(l.MaxMemory, m.MaxMemory)
	}
	if m.MaxRows > 0 {
		l.MaxRows = min(l.MaxRows, m.MaxRows)
	}
	if m.MaxResults > 0 {
		l.MaxResults = min(l.MaxResults, m.MaxResults)
	}
	return l
}

// NewGate returns a gate admitting max queries at once, perClient of them from one client, the last quarter of
// max only to a client running none, and besides them max/2 lookups (one per client); zero takes the defaults
// above. client names the address a request comes from (behind a proxy, the forwarded client's); nil takes the
// peer's IP. Addresses are counted by clientKey.
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
	perNetwork := max / 2
	if perNetwork < perClient {
		perNetwork = perClient
	}
	return &Gate{max: max, perClient: perClient, perNetwork: perNetwork, reserve: max / 4, lookupMax: max/2 + max%2,
		client: client, byClient: map[string]int{}, byNetwork: map[string]int{}, lookups: map[string]string{},
		slice: DefaultSlice, patience: DefaultPatience, wait: 2 * DefaultSlice,
		cores:  eval.NewCores(runtime.GOMAXPROCS(0)),
		memory: eval.NewMemory(DefaultServerMemory)}
}

// clientKey is what a client address counts as: an IPv4 address (an IPv4-mapped IPv6 one too) by itself, an IPv6
// address by its /64, the prefix a single site or host is given. Anything else (a test's name) is its own key.
func clientKey(addr string) string { return ipv6Prefix(addr, 64) }

// networkKey is the network a client address belongs to, for the share of slots one party holds: an IPv6
// address's /48, the prefix a site is usually given (one host commonly holds a /64 and a site a /56 or /48, so a
// single party can speak from thousands of /64s), and an IPv4 address by itself. IPv4 addresses are not grouped
// by /24: a /24 often holds a provider's unrelated customers or a campus's NAT pool, and IPv4 addresses are
// scarce enough that many of them are many hosts. Anything else is its own network.
func networkKey(addr string) string { return ipv6Prefix(addr, 48) }

// ipv6Prefix is an IPv6 address's prefix of bits bits, an IPv4 address by itself, anything else as it is.
func ipv6Prefix(addr string, bits int) string {
	a, err := netip.ParseAddr(addr)
	if err != nil {
		return addr
	}
	if a = a.Unmap(); a.Is4() {
		return a.String()
	}
	return netip.PrefixFrom(a.WithZone(""), bits).Masked().String()
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
const retryAfter = "2"
