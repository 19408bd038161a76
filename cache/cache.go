// Package cache is ldhub's one in-memory cache: least recently used first out, bounded by the total cost of its
// entries (a count when every entry costs 1, bytes when the cost is a size). Entries in use can be pinned, so that
// a mapped SPARQL index is never closed under a running query. Every cache of a derived thing goes through it:
// the SPARQL indexes of the API and of direct URLs, the resource pages of site/html and the routes of site.
package cache

import "sync"

// Options configure a Cache.
type Options[K comparable, V any] struct {
	// MaxCost bounds the total cost of the entries kept (at least 1).
	MaxCost int64
	// MaxItemCost, when > 0, is the most one entry may cost: a dearer one is not kept, since it would push out
	// many others for one.
	MaxItemCost int64
	// Cost returns what an entry counts against MaxCost; nil counts every entry as 1.
	Cost func(K, V) int64
	// OnEvict is called, with the cache locked, for every entry that leaves the cache other than by Remove
	// (e.g. to close a file mapping). Pinned entries never leave.
	OnEvict func(K, V)
}

// Cache is a least-recently-used cache, safe for concurrent use.
type Cache[K comparable, V any] struct {
	mu   sync.Mutex
	o    Options[K, V]
	size int64
	m    map[K]*entry[K, V]
	head entry[K, V] // sentinel of the use list: head.next is the most recently used
}

type entry[K comparable, V any] struct {
	key        K
	val        V
	cost       int64
	pins       int
	prev, next *entry[K, V]
}

// New returns an empty cache.
func New[K comparable, V any](o Options[K, V]) *Cache[K, V] {
	if o.MaxCost < 1 {
		o.MaxCost = 1
	}
	c := &Cache[K, V]{o: o, m: map[K]*entry[K, V]{}}
	c.head.next, c.head.prev = &c.head, &c.head
	return c
}

// Get returns the value kept under k and marks it used.
func (c *Cache[K, V]) Get(k K) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[k]
	if !ok {
		var zero V
		return zero, false
	}
	c.touch(e)
	return e.val, true
}

// Add keeps v under k, replacing what was there (which is not passed to OnEvict), and evicts the least recently
// used entries beyond the bound. It reports false when v costs more than MaxItemCost and was not kept; what was
// under k then stays.
func (c *Cache[K, V]) Add(k K, v V) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	cost := c.cost(k, v)
	if c.o.MaxItemCost > 0 && cost > c.o.MaxItemCost {
		return false
	}
	if e, ok := c.m[k]; ok {
		c.unlink(e)
	}
	c.insert(k, v, cost)
	return true
}

// LoadOrAdd returns the value kept under k if there is one (loaded), else keeps v and returns it. Two callers
// that built the same value concurrently thus end up sharing the first one kept.
func (c *Cache[K, V]) LoadOrAdd(k K, v V) (actual V, loaded bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.m[k]; ok {
		c.touch(e)
		return e.val, true
	}
	cost := c.cost(k, v)
	if c.o.MaxItemCost == 0 || cost <= c.o.MaxItemCost {
		c.insert(k, v, cost)
	}
	return v, false
}

// Acquire returns the value under k, opening it with open when absent, and pins it until release is called: a
// pinned entry is never evicted. open runs with the cache locked (opening twice would map a file twice).
func (c *Cache[K, V]) Acquire(k K, open func() (V, error)) (v V, release func(), err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[k]
	if ok {
		c.touch(e)
	} else {
		v, err := open()
		if err != nil {
			var zero V
			return zero, nil, err
		}
		e = c.insert(k, v, c.cost(k, v))
	}
	e.pins++
	return e.val, func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		e.pins--
	}, nil
}

// Cost is the total cost of the entries kept.
func (c *Cache[K, V]) Cost() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.size
}

// Len is the number of entries kept.
func (c *Cache[K, V]) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.m)
}

func (c *Cache[K, V]) cost(k K, v V) int64 {
	if c.o.Cost == nil {
		return 1
	}
	return c.o.Cost(k, v)
}

// insert keeps a new entry as the most recently used one, then evicts beyond the bound (never the new entry).
func (c *Cache[K, V]) insert(k K, v V, cost int64) *entry[K, V] {
	e := &entry[K, V]{key: k, val: v, cost: cost}
	c.m[k] = e
	c.size += cost
	c.linkFront(e)
	for p := c.head.prev; c.size > c.o.MaxCost && p != &c.head; {
		prev := p.prev
		if p != e && p.pins == 0 {
			c.unlink(p)
			if c.o.OnEvict != nil {
				c.o.OnEvict(p.key, p.val)
			}
		}
		p = prev
	}
	return e
}

func (c *Cache[K, V]) touch(e *entry[K, V]) {
	e.prev.next, e.next.prev = e.next, e.prev
	c.linkFront(e)
}

func (c *Cache[K, V]) linkFront(e *entry[K, V]) {
	e.prev, e.next = &c.head, c.head.next
	c.head.next.prev = e
	c.head.next = e
}

// unlink removes e from the map and the use list.
func (c *Cache[K, V]) unlink(e *entry[K, V]) {
	e.prev.next, e.next.prev = e.next, e.prev
	e.prev, e.next = nil, nil
	delete(c.m, e.key)
	c.size -= e.cost
}
