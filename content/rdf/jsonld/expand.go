package jsonld

import (
	"strconv"
	"strings"
)

// This file is the Expansion Algorithm, JSON-LD 1.1 API §5.1–5.3. Values are the ones encoding/json decodes into
// any: map[string]any, []any, string, float64, bool and nil. Expanded maps are new; the input is never changed.

func itoa(i int) string { return strconv.Itoa(i) }

func asArray(v any) []any {
	if a, ok := v.([]any); ok {
		return a
	}
	return []any{v}
}

func isScalar(v any) bool {
	switch v.(type) {
	case string, float64, bool:
		return true
	}
	return false
}

// expand is the Expansion Algorithm (§5.1.2) with frame expansion off. prop is the active property ("" for
// none).
func (p *processor) expand(active *activeContext, prop string, element any, base string, fromMap bool) (any, error) {
	if element == nil {
		return nil, nil
	}
	propDef := active.terms[prop]
	switch el := element.(type) {
	case []any:
		result := make([]any, 0, len(el))
		for i, item := range el {
			p.push(itoa(i))
			x, err := p.expand(active, prop, item, base, fromMap)
			if err != nil {
				return nil, err
			}
			p.pop()
			if propDef != nil && propDef.container&cList != 0 {
				if p.mode10 && isListObject(x) {
					return nil, p.fail("list of lists", "a list in a list is JSON-LD 1.1")
				}
				if a, ok := x.([]any); ok {
					if p.mode10 {
						return nil, p.fail("list of lists", "a list in a list is JSON-LD 1.1")
					}
					x = map[string]any{"@list": a}
				}
			}
			switch v := x.(type) {
			case nil:
			case []any:
				result = append(result, v...)
			default:
				result = append(result, v)
			}
		}
		return result, nil
	case map[string]any:
		return p.expandObject(active, prop, propDef, el, base, fromMap)
	}
	// A scalar.
	if prop == "" || prop == "@graph" {
		return nil, nil
	}
	if propDef != nil && propDef.hasContext {
		var err error
		if active, err = p.scoped(active, propDef, true, true); err != nil {
			return nil, err
		}
	}
	return p.expandValue(active, prop, element)
}

// scoped applies a term's scoped context, memoised: the same term applied to the same context always gives the
// same result, and documents apply them once per node.
func (p *processor) scoped(active *activeContext, def *termDef, override, propagate bool) (*activeContext, error) {
	key := memoKey{active: active, def: def}
	if override {
		key.flags |= fOverride
	}
	if !propagate {
		key.flags |= fNoPropagate
	}
	if r, ok := p.memo[key]; ok {
		return r, nil
	}
	p.frozen++
	r, err := p.processContext(active, def.context, def.base, nil, override, propagate, true)
	p.frozen--
	if err != nil {
		return nil, err
	}
	p.memo[key] = r
	return r, nil
}

// expandKey expands a key of an object: IRI expansion with vocab.
func (p *processor) expandKey(active *activeContext, key string) (string, error) {
	if isKeyword(key) {
		return key, nil
	}
	x, ok, err := p.expandIRI(active, key, false, true, nil)
	if !ok {
		return "", err
	}
	return x, err
}

func (p *processor) expandObject(active *activeContext, prop string, propDef *termDef, el map[string]any, base string, fromMap bool) (any, error) {
	keys := sortedKeys(el)
	// Expanded keys, computed once.
	exp := make(map[string]string, len(keys))
	for _, k := range keys {
		x, err := p.expandKey(active, k)
		if err != nil {
			return nil, err
		}
		exp[k] = x
	}
	if active.previous != nil && !fromMap {
		revert := true
		for _, k := range keys {
			if exp[k] == "@value" {
				revert = false
				break
			}
		}
		if len(keys) == 1 && exp[keys[0]] == "@id" {
			revert = false
		}
		if revert {
			active = active.previous
			for _, k := range keys {
				x, err := p.expandKey(active, k)
				if err != nil {
					return nil, err
				}
				exp[k] = x
			}
		}
	}
	changed := false
	if propDef != nil && propDef.hasContext {
		var err error
		if active, err = p.scoped(active, propDef, true, true); err != nil {
			return nil, err
		}
		changed = true
	}
	if c, ok := el["@context"]; ok {
		p.push("@context")
		var err error
		active, err = p.processContext(active, c, base, nil, false, true, true)
		if err != nil {
			return nil, err
		}
		p.pop()
		changed = true
	}
	if changed {
		for _, k := range keys {
			x, err := p.expandKey(active, k)
			if err != nil {
				return nil, err
			}
			exp[k] = x
		}
	}
	typeScoped := active
	var inputType string
	firstType := true
	for _, k := range keys {
		if exp[k] != "@type" {
			continue
		}
		types := asArray(el[k])
		var sorted []string
		for _, t := range types {
			if s, ok := t.(string); ok {
				sorted = append(sorted, s)
			}
		}
		sortStrings(sorted)
		for _, t := range sorted {
			if d, ok := typeScoped.terms[t]; ok && d.hasContext {
				var err error
				if active, err = p.scoped(active, d, false, false); err != nil {
					return nil, err
				}
			}
		}
		if firstType && len(types) > 0 {
			if s, ok := types[len(types)-1].(string); ok {
				x, ok, err := p.expandIRI(typeScoped, s, false, true, nil)
				if err != nil {
					return nil, err
				}
				if ok {
					inputType = x
				}
			}
		}
		firstType = false
	}
	if active != typeScoped {
		for _, k := range keys {
			x, err := p.expandKey(active, k)
			if err != nil {
				return nil, err
			}
			exp[k] = x
		}
	}
	result := map[string]any{}
	var nests []string
	if err := p.expandEntries(active, typeScoped, prop, el, keys, exp, base, inputType, result, &nests); err != nil {
		return nil, err
	}
	for _, nk := range nests {
		if err := p.expandNest(active, typeScoped, prop, el, nk, base, inputType, result); err != nil {
			return nil, err
		}
	}
	return p.finishObject(prop, result)
}

// expandNest expands the nested values of key in parent into result.
func (p *processor) expandNest(active, typeScoped *activeContext, prop string, parent map[string]any, key, base, inputType string, result map[string]any) error {
	p.push(key)
	defer p.pop()
	if d := active.terms[key]; d != nil && d.hasContext {
		var err error
		if active, err = p.scoped(active, d, true, true); err != nil {
			return err
		}
	}
	prop = key
	vals := parent[key]
	_, isArr := vals.([]any)
	for i, nv := range asArray(vals) {
		if isArr {
			p.push(itoa(i))
		}
		nm, ok := nv.(map[string]any)
		if !ok {
			return p.fail("invalid @nest value", "a nested value is an object")
		}
		nkeys := sortedKeys(nm)
		nexp := make(map[string]string, len(nkeys))
		for _, k := range nkeys {
			x, err := p.expandKey(active, k)
			if err != nil {
				return err
			}
			if x == "@value" {
				return p.fail("invalid @nest value", "a nested value cannot be a value object")
			}
			nexp[k] = x
		}
		var more []string
		if err := p.expandEntries(active, typeScoped, prop, nm, nkeys, nexp, base, inputType, result, &more); err != nil {
			return err
		}
		for _, mk := range more {
			if err := p.expandNest(active, typeScoped, prop, nm, mk, base, inputType, result); err != nil {
				return err
			}
		}
		if isArr {
			p.pop()
		}
	}
	return nil
}

func sortStrings(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

func appendValue(result map[string]any, key string, v any) {
	cur, ok := result[key]
	if !ok {
		if a, isArr := v.([]any); isArr {
			result[key] = append([]any{}, a...)
		} else {
			result[key] = []any{v}
		}
		return
	}
	a := asArray(cur)
	if va, isArr := v.([]any); isArr {
		a = append(a, va...)
	} else {
		a = append(a, v)
	}
	result[key] = a
}

func isValueObject(v any) bool {
	m, ok := v.(map[string]any)
	if !ok {
		return false
	}
	_, has := m["@value"]
	return has
}

func isListObject(v any) bool {
	m, ok := v.(map[string]any)
	if !ok {
		return false
	}
	_, has := m["@list"]
	return has
}

func isGraphObject(v any) bool {
	m, ok := v.(map[string]any)
	if !ok {
		return false
	}
	if _, has := m["@graph"]; !has {
		return false
	}
	for k := range m {
		switch k {
		case "@graph", "@id", "@index", "@context":
		default:
			return false
		}
	}
	return true
}

// expandEntries is step 13 of the Expansion Algorithm: it expands the entries of el into result, and collects
// the keys of nested properties.
func (p *processor) expandEntries(active, typeScoped *activeContext, prop string, el map[string]any, keys []string, exp map[string]string,
	base, inputType string, result map[string]any, nests *[]string) error {
	for _, key := range keys {
		if key == "@context" {
			continue
		}
		value := el[key]
		ep := exp[key]
		if ep == "" || !strings.Contains(ep, ":") && !isKeyword(ep) {
			continue
		}
		p.push(key)
		if isKeyword(ep) {
			if err := p.expandKeyword(active, typeScoped, prop, value, ep, key, base, inputType, result, nests); err != nil {
				return err
			}
			p.pop()
			continue
		}
		def := active.terms[key]
		var container uint8
		if def != nil {
			container = def.container
		}
		var ev any
		vm, isMap := value.(map[string]any)
		switch {
		case def != nil && def.typ == "@json":
			ev = map[string]any{"@value": value, "@type": "@json"}
		case container&cLanguage != 0 && isMap:
			dir := active.dir
			if def.dir != nil {
				dir = *def.dir
			}
			out := []any{}
			for _, lang := range sortedKeys(vm) {
				lv := vm[lang]
				for _, item := range asArray(lv) {
					if item == nil {
						continue
					}
					s, ok := item.(string)
					if !ok {
						return p.fail("invalid language map value", "language map values are strings")
					}
					v := map[string]any{"@value": s}
					el, err := p.expandKey(active, lang)
					if err != nil {
						return err
					}
					if lang != "@none" && el != "@none" {
						v["@language"] = strings.ToLower(lang)
					}
					if dir != "" {
						v["@direction"] = dir
					}
					out = append(out, v)
				}
			}
			ev = out
		case container&(cIndex|cType|cID) != 0 && isMap:
			out := []any{}
			indexKey := "@index"
			if def.index != "" {
				indexKey = def.index
			}
			for _, index := range sortedKeys(vm) {
				iv := vm[index]
				p.push(index)
				mapCtx := active
				if container&cType != 0 {
					prev := active
					if active.previous != nil {
						prev = active.previous
					}
					if d, ok := prev.terms[index]; ok && d.hasContext {
						var err error
						if mapCtx, err = p.scoped(prev, d, false, true); err != nil {
							return err
						}
					}
				}
				expIndex, err := p.expandKey(active, index)
				if err != nil {
					return err
				}
				x, err := p.expand(mapCtx, key, iv, base, true)
				if err != nil {
					return err
				}
				for _, item := range asArray(x) {
					if container&cGraph != 0 && !isGraphObject(item) {
						item = map[string]any{"@graph": asArray(item)}
					}
					im, _ := item.(map[string]any)
					if im == nil {
						continue
					}
					switch {
					case container&cIndex != 0 && indexKey != "@index" && expIndex != "@none":
						re, err := p.expandValue(active, indexKey, index)
						if err != nil {
							return err
						}
						eik, err := p.expandKey(active, indexKey)
						if err != nil {
							return err
						}
						vals := []any{re}
						if old, ok := im[eik]; ok {
							vals = append(vals, asArray(old)...)
						}
						im[eik] = vals
						if _, isVal := im["@value"]; isVal {
							return p.fail("invalid value object", "a value in a property-valued index map")
						}
					case container&cIndex != 0 && expIndex != "@none":
						if _, has := im["@index"]; !has {
							im["@index"] = index
						}
					case container&cID != 0 && expIndex != "@none":
						if _, has := im["@id"]; !has {
							id, _, err := p.expandIRI(active, index, true, false, nil)
							if err != nil {
								return err
							}
							im["@id"] = id
						}
					case container&cType != 0 && expIndex != "@none":
						types := []any{expIndex}
						if old, ok := im["@type"]; ok {
							types = append(types, asArray(old)...)
						}
						im["@type"] = types
					}
					out = append(out, im)
				}
				p.pop()
			}
			ev = out
		default:
			x, err := p.expand(active, key, value, base, false)
			if err != nil {
				return err
			}
			ev = x
		}
		if ev == nil {
			p.pop()
			continue
		}
		if container&cList != 0 && !isListObject(ev) {
			ev = map[string]any{"@list": asArray(ev)}
		}
		if container&cGraph != 0 && container&(cID|cIndex) == 0 {
			items := asArray(ev)
			out := make([]any, len(items))
			for i, it := range items {
				out[i] = map[string]any{"@graph": asArray(it)}
			}
			ev = out
		}
		if def != nil && def.reverse {
			rm, _ := result["@reverse"].(map[string]any)
			if rm == nil {
				rm = map[string]any{}
				result["@reverse"] = rm
			}
			for _, item := range asArray(ev) {
				if isValueObject(item) || isListObject(item) {
					return p.fail("invalid reverse property value", "a reverse property's values are nodes")
				}
				appendValue(rm, ep, item)
			}
		} else {
			appendValue(result, ep, ev)
		}
		p.pop()
	}
	return nil
}

func (p *processor) expandKeyword(active, typeScoped *activeContext, prop string, value any, ep, key, base, inputType string,
	result map[string]any, nests *[]string) error {
	if prop == "@reverse" {
		return p.fail("invalid reverse property map", "a reverse property map cannot hold keywords")
	}
	if _, has := result[ep]; has && ep != "@included" && ep != "@type" {
		return p.fail("colliding keywords", "%s given twice", ep)
	}
	var ev any
	switch ep {
	case "@id":
		s, ok := value.(string)
		if !ok {
			return p.fail("invalid @id value", "@id must be a string")
		}
		x, ok, err := p.expandIRI(active, s, true, false, nil)
		if err != nil {
			return err
		}
		if !ok {
			// An @id with the form of a keyword expands to null; the node has no identifier RDF can use.
			result["@id"] = nil
			return nil
		}
		ev = x
	case "@type":
		var out []any
		switch v := value.(type) {
		case string:
			x, _, err := p.expandIRI(typeScoped, v, true, true, nil)
			if err != nil {
				return err
			}
			ev = x
		case []any:
			for _, t := range v {
				s, ok := t.(string)
				if !ok {
					return p.fail("invalid type value", "@type values are strings")
				}
				x, _, err := p.expandIRI(typeScoped, s, true, true, nil)
				if err != nil {
					return err
				}
				out = append(out, x)
			}
			ev = out
			if out == nil {
				ev = []any{}
			}
		default:
			return p.fail("invalid type value", "@type must be a string or an array of strings")
		}
		if old, ok := result["@type"]; ok {
			all := append(asArray(old), asArray(ev)...)
			ev = all
		}
	case "@graph":
		x, err := p.expand(active, "@graph", value, base, false)
		if err != nil {
			return err
		}
		ev = asArray(x)
		if x == nil {
			ev = []any{}
		}
	case "@included":
		if p.mode10 {
			return nil
		}
		x, err := p.expand(active, "@included", value, base, false)
		if err != nil {
			return err
		}
		items := asArray(x)
		if x == nil {
			items = []any{}
		}
		for _, it := range items {
			m, ok := it.(map[string]any)
			if !ok || isValueObject(m) || isListObject(m) {
				return p.fail("invalid @included value", "@included holds node objects")
			}
			if _, set := m["@set"]; set {
				return p.fail("invalid @included value", "@included holds node objects")
			}
		}
		if old, ok := result["@included"]; ok {
			items = append(asArray(old), items...)
		}
		ev = items
	case "@value":
		if inputType == "@json" {
			if p.mode10 {
				return p.fail("invalid value object value", "@json is JSON-LD 1.1")
			}
			result["@value"] = value
			return nil
		}
		if value != nil && !isScalar(value) {
			return p.fail("invalid value object value", "@value must be a string, number, boolean or null")
		}
		result["@value"] = value
		return nil
	case "@language":
		s, ok := value.(string)
		if !ok {
			return p.fail("invalid language-tagged string", "@language must be a string")
		}
		ev = strings.ToLower(s)
	case "@direction":
		if p.mode10 {
			return nil
		}
		if value != "ltr" && value != "rtl" {
			return p.fail("invalid base direction", "@direction must be \"ltr\" or \"rtl\"")
		}
		ev = value
	case "@index":
		s, ok := value.(string)
		if !ok {
			return p.fail("invalid @index value", "@index must be a string")
		}
		ev = s
	case "@list":
		if prop == "" || prop == "@graph" {
			return nil
		}
		x, err := p.expand(active, prop, value, base, false)
		if err != nil {
			return err
		}
		if p.mode10 {
			for _, it := range asArray(x) {
				if isListObject(it) {
					return p.fail("list of lists", "a list in a list is JSON-LD 1.1")
				}
			}
		}
		ev = asArray(x)
		if x == nil {
			ev = []any{}
		}
	case "@set":
		x, err := p.expand(active, prop, value, base, false)
		if err != nil {
			return err
		}
		ev = x
	case "@reverse":
		vm, ok := value.(map[string]any)
		if !ok {
			return p.fail("invalid @reverse value", "@reverse must be an object")
		}
		x, err := p.expand(active, "@reverse", vm, base, false)
		if err != nil {
			return err
		}
		xm, _ := x.(map[string]any)
		if rev, ok := xm["@reverse"].(map[string]any); ok {
			for k, v := range rev {
				appendValue(result, k, v)
			}
		}
		var rm map[string]any
		for k, v := range xm {
			if k == "@reverse" {
				continue
			}
			if rm == nil {
				rm, _ = result["@reverse"].(map[string]any)
				if rm == nil {
					rm = map[string]any{}
					result["@reverse"] = rm
				}
			}
			for _, item := range asArray(v) {
				if isValueObject(item) || isListObject(item) {
					return p.fail("invalid reverse property value", "a reverse property's values are nodes")
				}
				appendValue(rm, k, item)
			}
		}
		return nil
	case "@nest":
		*nests = append(*nests, key)
		return nil
	default:
		// Framing keywords and @context-only keywords mean nothing here.
		return nil
	}
	if ev == nil && ep != "@value" {
		return nil
	}
	result[ep] = ev
	return nil
}

// finishObject is steps 15–20 of the Expansion Algorithm.
func (p *processor) finishObject(prop string, result map[string]any) (any, error) {
	if v, ok := result["@value"]; ok {
		for k := range result {
			switch k {
			case "@direction", "@index", "@language", "@type", "@value":
			default:
				return nil, p.fail("invalid value object", "unexpected %s in a value object", k)
			}
		}
		_, hasLang := result["@language"]
		_, hasDir := result["@direction"]
		typ, hasType := result["@type"]
		if hasType && (hasLang || hasDir) {
			return nil, p.fail("invalid value object", "a value object has @type or @language/@direction, not both")
		}
		if typ == "@json" {
			if prop == "" || prop == "@graph" {
				return nil, nil
			}
			return result, nil
		}
		if v == nil {
			return nil, nil
		}
		if _, isStr := v.(string); !isStr && hasLang {
			return nil, p.fail("invalid language-tagged value", "only strings have a language")
		}
		if hasType {
			t, ok := typ.(string)
			if !ok || !wellFormedIRI(t) {
				return nil, p.fail("invalid typed value", "a value's @type is one IRI")
			}
		}
		if prop == "" || prop == "@graph" {
			return nil, nil // a free-floating value
		}
		return result, nil
	}
	if t, ok := result["@type"]; ok {
		if _, isArr := t.([]any); !isArr {
			result["@type"] = []any{t}
		}
	}
	_, hasSet := result["@set"]
	_, hasList := result["@list"]
	if hasSet || hasList {
		if len(result) > 2 {
			return nil, p.fail("invalid set or list object", "a set or list object has only @index besides")
		}
		if len(result) == 2 {
			if _, ok := result["@index"]; !ok {
				return nil, p.fail("invalid set or list object", "a set or list object has only @index besides")
			}
		}
		if hasSet {
			return result["@set"], nil
		}
	}
	if _, ok := result["@language"]; ok && len(result) == 1 {
		return nil, nil
	}
	if prop == "" || prop == "@graph" {
		if len(result) == 0 || hasList {
			return nil, nil
		}
		if _, ok := result["@id"]; ok && len(result) == 1 {
			return nil, nil
		}
	}
	return result, nil
}

// expandValue is Value Expansion (§5.3.2).
func (p *processor) expandValue(active *activeContext, prop string, value any) (any, error) {
	def := active.terms[prop]
	if def != nil {
		if s, ok := value.(string); ok {
			switch def.typ {
			case "@id":
				x, _, err := p.expandIRI(active, s, true, false, nil)
				return map[string]any{"@id": x}, err
			case "@vocab":
				x, _, err := p.expandIRI(active, s, true, true, nil)
				return map[string]any{"@id": x}, err
			}
		}
	}
	result := map[string]any{"@value": value}
	if def != nil && def.typ != "" && def.typ != "@id" && def.typ != "@vocab" && def.typ != "@none" {
		result["@type"] = def.typ
		return result, nil
	}
	if _, ok := value.(string); ok {
		lang, dir := active.lang, active.dir
		if def != nil && def.lang != nil {
			lang = *def.lang
		}
		if def != nil && def.dir != nil {
			dir = *def.dir
		}
		if lang != "" {
			result["@language"] = lang
		}
		if dir != "" {
			result["@direction"] = dir
		}
	}
	return result, nil
}
