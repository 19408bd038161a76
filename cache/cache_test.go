package cache

import (
	"errors"
	"fmt"
	"sync"
	"testing"
)

func TestEvictsLeastRecentlyUsed(t *testing.T) {
	var evicted []string
	c := New(Options[string, int]{MaxCost: 3, OnEvict: func(k string, _ int) { evicted = append(evicted, k) }})
	c.Add("a", 1)
	c.Add("b", 2)
	c.Add("c", 3)
	if v, ok := c.Get("a"); !ok || v != 1 { // a is now the most recently used
		t.Fatalf("Get(a) = %v, %v", v, ok)
	}
	c.Add("d", 4)
	if _, ok := c.Get("b"); ok {
		t.Error("b, the least recently used, was kept")
	}
	for _, k := range []string{"a", "c", "d"} {
		if _, ok := c.Get(k); !ok {
			t.Errorf("%s evicted", k)
		}
	}
	if fmt.Sprint(evicted) != "[b]" || c.Len() != 3 {
		t.Errorf("evicted %v, len %d", evicted, c.Len())
	}
	c.Add("a", 10) // replacing is not an eviction and does not grow the cache
	if v, _ := c.Get("a"); v != 10 || c.Len() != 3 || len(evicted) != 1 {
		t.Errorf("after replace: a=%v len=%d evicted=%v", v, c.Len(), evicted)
	}
}

func TestCostBound(t *testing.T) {
	c := New(Options[string, string]{MaxCost: 10, MaxItemCost: 6, Cost: func(k, v string) int64 { return int64(len(v)) }})
	c.Add("a", "aaaa")
	c.Add("b", "bbbb")
	if !c.Add("c", "cccc") { // 12 > 10: a goes
		t.Fatal("c refused")
	}
	if _, ok := c.Get("a"); ok || c.Len() != 2 {
		t.Errorf("a kept, len %d", c.Len())
	}
	if c.Add("b", "0123456") { // dearer than MaxItemCost: not kept, and b's old value stays
		t.Error("an entry over MaxItemCost was kept")
	}
	if v, ok := c.Get("b"); !ok || v != "bbbb" {
		t.Errorf("b = %q, %v", v, ok)
	}
	if v, loaded := c.LoadOrAdd("b", "x"); !loaded || v != "bbbb" {
		t.Errorf("LoadOrAdd(b) = %q, %v", v, loaded)
	}
	if v, loaded := c.LoadOrAdd("z", "zz"); loaded || v != "zz" {
		t.Errorf("LoadOrAdd(z) = %q, %v", v, loaded)
	}
}

func TestPinnedEntriesStay(t *testing.T) {
	closed := map[string]bool{}
	c := New(Options[string, string]{MaxCost: 1, OnEvict: func(k, _ string) { closed[k] = true }})
	opens := 0
	open := func(v string) func() (string, error) { return func() (string, error) { opens++; return v, nil } }
	a, releaseA, err := c.Acquire("a", open("A"))
	if err != nil || a != "A" {
		t.Fatal(a, err)
	}
	_, releaseB, _ := c.Acquire("b", open("B")) // over the bound, but a is pinned
	if closed["a"] || c.Len() != 2 {
		t.Fatalf("pinned a evicted (closed %v, len %d)", closed, c.Len())
	}
	if _, rel, _ := c.Acquire("a", open("again")); opens != 2 {
		t.Errorf("a opened again (%d opens)", opens)
	} else {
		rel()
	}
	releaseA()
	releaseB()
	c.Add("c", "C") // now a and b are idle: both go
	if !closed["a"] || !closed["b"] || c.Len() != 1 {
		t.Errorf("closed %v, len %d", closed, c.Len())
	}
	if _, _, err := c.Acquire("x", func() (string, error) { return "", errors.New("no file") }); err == nil || c.Len() != 1 {
		t.Errorf("failed open kept: err %v len %d", err, c.Len())
	}
}

func TestConcurrentUse(t *testing.T) {
	c := New(Options[int, int]{MaxCost: 64})
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 2000; i++ {
				k := (i * (g + 1)) % 100
				if v, ok := c.Get(k); ok && v != k {
					t.Errorf("Get(%d) = %d", k, v)
					return
				}
				c.Add(k, k)
				_, rel, _ := c.Acquire(k+1000, func() (int, error) { return k + 1000, nil })
				rel()
			}
		}()
	}
	wg.Wait()
	if n := c.Len(); n > 64 {
		t.Errorf("%d entries kept, bound 64", n)
	}
}
