package eval

import (
	"context"
	"reflect"
	"testing"
	"unsafe"

	"github.com/ldhub/ldhub/sparqlsvc/parser"
)

// How a worker's evaluator (child) gets each field of the query's evaluator.
const (
	carryShare = iota // the same value: read-only from the fork on (the dataset, the plan, the query's variables)
	carryClone        // a copy of the map: filled by the query's goroutine, read and extended by the worker
	carryFresh        // a new, empty cache or overlay of the worker's own
	carryZero         // starts at zero: a counter, a scratch value or state of one evaluation
	carryOwn          // set by child from the run (its context, its budget, its worker record)
)

// childCarry classifies every field of evaluator. A field added to evaluator and missing here fails
// TestChildCarriesEveryField, so whoever adds one decides, in child, whether a worker shares, copies or starts it.
var childCarry = map[string]int{
	"ctx": carryOwn, "ds": carryShare, "t": carryFresh, "fn": carryFresh, "opt": carryOwn,
	"slots": carryClone, "names": carryShare, "nvars": carryShare, "active": carryShare, "steps": carryZero,
	"outerNoted": carryFresh, "semiSets": carryZero, "narrowSets": carryZero, "bitStars": carryZero, "nestedScans": carryZero, "subjectSets": carryZero, "chainSets": carryZero, "narrowRuns": carryZero, "spread": carryZero, "unionGroups": carryZero, "trial": carryZero, "nextCheck": carryZero,
	"stopWork": carryZero, "probes": carryZero, "farProbes": carryZero, "inExists": carryZero, "held": carryZero, "bytes": carryZero, "charged": carryZero, "sent": carryZero, "cache": carryClone,
	"safeC": carryClone, "safeRecent": carryZero, "safeNext": carryZero, "orders": carryClone,
	"scans": carryClone, "pushed": carryClone, "crossSplits": carryClone, "seqJoins": carryClone, "jointSeqs": carryClone, "seqMerges": carryZero, "distinctAll": carryShare, "checkSites": carryZero, "tables": carryZero, "keyBinds": carryClone, "unprojected": carryClone, "pathGroups": carryClone, "hopGroups": carryClone, "hopFirsts": carryClone, "leafGroups": carryZero, "splits": carryClone, "valuesJoins": carryClone, "valuesLast": carryClone, "substVars": carryClone, "bgps": carryFresh,
	"fanout": carryClone, "info": carryFresh, "subst": carryZero, "multi": carryShare, "consts": carryClone,
	"reach": carryFresh, "curRow": carryZero, "bindVs": carryShare, "direct": carryZero, "lowest": carryZero,
	"topK": carryFresh, "topReads": carryZero, "lateBinds": carryZero, "argStack": carryZero, "pathLinks": carryFresh, "pathSites": carryFresh, "pathOrders": carryClone, "domainPlans": carryZero, "farOrders": carryZero,
	"bySubject": carryClone, "byObject": carryClone, "scanRows": carryClone, "narrowRows": carryClone, "existsMemos": carryZero, "lastExists": carryZero, "lastMemo": carryZero, "optFilters": carryZero, "constKeys": carryFresh,
	"scratchKeys": carryZero, "keyMemoID": carryZero, "keyMemo": carryZero, "lenMemo": carryZero, "distinctKey": carryZero, "lowerBuf": carryZero, "testMemos": carryZero, "testRecent": carryZero, "varRefs": carryZero,
	"filterVars": carryClone, "filterConj": carryClone, "shares": carryClone, "cmpSites": carryZero,
	"constNums": carryZero, "nextConst": carryZero, "constVals": carryZero, "nextConstVal": carryZero, "noValues": carryZero, "plainKeys": carryZero, "noCompile": carryZero, "progs": carryZero, "progNodes": carryZero, "numProgs": carryZero, "valueSites": carryZero, "nextValueSite": carryZero, "eqHalves": carryZero, "inEquals": carryZero, "blocks": carryZero,
	"top": carryShare, "askForm": carryShare, "fork": carryZero, "par": carryZero, "work": carryOwn,
	"limited": carryClone, "groupKeys": carryClone, "minusBy": carryClone, "inMemos": carryZero, "minusNot": carryClone,
	// A worker's overlay ids are its own, so the memos keyed by them start empty; noMemo is for tests on one goroutine.
	"bindMemos": carryZero, "sumMemos": carryZero, "noMemo": carryZero, "lastDate": carryZero, "runMemo": carryZero, "leftGates": carryZero,
	// conjunctShare's answers are made again on demand (a worker's plans are cloned in orders and scans).
	"conjShares": carryZero,
	// A worker evaluates no subquery through the memo (subMemo): the query's goroutine keeps and replays them.
	"subRoots": carryZero, "subKept": carryZero, "sortedFeeds": carryZero,
}

// TestChildCarriesEveryField fills every map, pointer, slice and number of a query's evaluator, makes a worker's
// evaluator from it (child) and checks each field against childCarry: shared fields hold the same value, cloned
// maps the same entries in another map, fresh ones an empty cache of their own, and the rest start at zero. It
// fails when a field is added to evaluator without a line in childCarry, or when child forgets one.
func TestChildCarriesEveryField(t *testing.T) {
	ds := parallelData(t, 20, 1)
	q, err := parser.Parse(`SELECT * { ?s <http://ex.org/p0> ?v }`, parser.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cores := NewCores(2)
	e := newEvaluator(context.Background(), ds, q, Options{Cores: cores})
	typ := reflect.TypeFor[evaluator]()
	pv := reflect.ValueOf(e).Elem()
	field := func(v reflect.Value, i int) reflect.Value {
		f := v.Field(i)
		return reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem()
	}
	for i := range typ.NumField() {
		name := typ.Field(i).Name
		if _, ok := childCarry[name]; !ok {
			t.Errorf("evaluator.%s is not in childCarry: decide in child how a worker gets it, and add it", name)
			continue
		}
		f := field(pv, i)
		switch f.Kind() {
		case reflect.Map:
			if f.IsNil() {
				f.Set(reflect.MakeMap(f.Type()))
			}
			f.SetMapIndex(reflect.New(f.Type().Key()).Elem(), reflect.New(f.Type().Elem()).Elem())
		case reflect.Pointer:
			if f.IsNil() {
				f.Set(reflect.New(f.Type().Elem()))
			}
		case reflect.Slice:
			if f.IsNil() {
				f.Set(reflect.MakeSlice(f.Type(), 1, 1))
			}
		case reflect.Int, reflect.Int64:
			if f.Int() == 0 {
				f.SetInt(3)
			}
		case reflect.Bool:
			f.SetBool(true)
		}
	}
	for name := range childCarry {
		if _, ok := typ.FieldByName(name); !ok {
			t.Errorf("childCarry names %s, which evaluator no longer has", name)
		}
	}
	e.work, e.fork, e.par = nil, nil, nil // the query's goroutine before a run
	run := &forkRun{budget: 1 << 20, maxRow: 100, nvars: e.nvars}
	run.ctx, run.cancel = context.WithCancel(context.Background())
	defer run.cancel()
	w := e.child(run)
	cv := reflect.ValueOf(w).Elem()
	for i := range typ.NumField() {
		name := typ.Field(i).Name
		p, c := field(pv, i), field(cv, i)
		nilable := p.Kind() == reflect.Map || p.Kind() == reflect.Pointer || p.Kind() == reflect.Slice
		switch childCarry[name] {
		case carryShare:
			if nilable && p.Pointer() != c.Pointer() || !nilable && !reflect.DeepEqual(p.Interface(), c.Interface()) {
				t.Errorf("evaluator.%s: the worker's is not the query's (shared)", name)
			}
		case carryClone:
			if c.Kind() != reflect.Map || c.IsNil() || c.Pointer() == p.Pointer() || c.Len() != p.Len() {
				t.Errorf("evaluator.%s: the worker's is not a copy of the query's map", name)
			}
		case carryFresh:
			if c.IsNil() || c.Pointer() == p.Pointer() || c.Kind() == reflect.Map && c.Len() != 0 {
				t.Errorf("evaluator.%s: the worker's is not an empty one of its own", name)
			}
		case carryZero:
			if !c.IsZero() {
				t.Errorf("evaluator.%s: the worker's does not start at zero", name)
			}
		}
	}
	if w.ctx != run.ctx || w.work == nil || w.work.run != run || w.opt.MaxMemory != run.budget || w.opt.Cores != cores {
		t.Error("the worker's context, run, budget or pool are not the run's")
	}
}
