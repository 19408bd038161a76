package jsonld

import (
	"slices"
	"strings"

	"github.com/ldhub/ldhub/content/rdf/iri"
)

// This file is compaction, JSON-LD 1.1 API §6: the Compaction Algorithm, Inverse Context Creation, Term
// Selection, IRI Compaction and Value Compaction.

// inverseContext maps an IRI to container → "@language"/"@type"/"@any" → value → term.
type inverseContext map[string]map[string]map[string]map[string]string

var containerOrder = []struct {
	bit  uint8
	name string
}{{cGraph, "@graph"}, {cID, "@id"}, {cIndex, "@index"}, {cLanguage, "@language"}, {cList, "@list"}, {cSet, "@set"}, {cType, "@type"}}

func containerString(c uint8) string {
	if c == 0 {
		return "@none"
	}
	var b strings.Builder
	for _, o := range containerOrder {
		if c&o.bit != 0 {
			b.WriteString(o.name)
		}
	}
	return b.String()
}

func (c *activeContext) inverse() inverseContext {
	if c.inv != nil {
		return *c.inv
	}
	result := inverseContext{}
	defLang := "@none"
	if c.lang != "" {
		defLang = strings.ToLower(c.lang)
	}
	if c.dir != "" {
		defLang = strings.ToLower(c.lang) + "_" + c.dir
	}
	terms := make([]string, 0, len(c.terms))
	for t := range c.terms {
		terms = append(terms, t)
	}
	slices.SortFunc(terms, func(a, b string) int {
		if len(a) != len(b) {
			return len(a) - len(b)
		}
		return strings.Compare(a, b)
	})
	setIfMissing := func(m map[string]string, k, v string) {
		if _, ok := m[k]; !ok {
			m[k] = v
		}
	}
	for _, term := range terms {
		d := c.terms[term]
		if d.iri == "" {
			continue
		}
		container := containerString(d.container)
		cm := result[d.iri]
		if cm == nil {
			cm = map[string]map[string]map[string]string{}
			result[d.iri] = cm
		}
		tl := cm[container]
		if tl == nil {
			tl = map[string]map[string]string{"@language": {}, "@type": {}, "@any": {"@none": term}}
			cm[container] = tl
		}
		langMap, typeMap := tl["@language"], tl["@type"]
		switch {
		case d.reverse:
			setIfMissing(typeMap, "@reverse", term)
		case d.typ == "@none":
			setIfMissing(langMap, "@any", term)
			setIfMissing(typeMap, "@any", term)
		case d.typ != "":
			setIfMissing(typeMap, d.typ, term)
		case d.lang != nil && d.dir != nil:
			key := "@null"
			switch {
			case *d.lang != "" && *d.dir != "":
				key = *d.lang + "_" + *d.dir
			case *d.lang != "":
				key = *d.lang
			case *d.dir != "":
				key = "_" + *d.dir
			}
			setIfMissing(langMap, key, term)
		case d.lang != nil:
			key := "@null"
			if *d.lang != "" {
				key = *d.lang
			}
			setIfMissing(langMap, key, term)
		case d.dir != nil:
			key := "@none"
			if *d.dir != "" {
				key = "_" + *d.dir
			}
			setIfMissing(langMap, key, term)
		default:
			setIfMissing(langMap, defLang, term)
			setIfMissing(langMap, "@none", term)
			setIfMissing(typeMap, "@none", term)
		}
	}
	c.inv = &result
	return result
}

func (c *activeContext) selectTerm(v string, containers []string, typeLang string, preferred []string) string {
	cm := c.inverse()[v]
	for _, container := range containers {
		tl, ok := cm[container]
		if !ok {
			continue
		}
		vm := tl[typeLang]
		for _, pv := range preferred {
			if t, ok := vm[pv]; ok {
				return t
			}
		}
	}
	return ""
}

// compactIRI is IRI Compaction (§6.4). value is the value the IRI is a property of (nil when none).
func (p *processor) compactIRI(c *activeContext, v string, value any, vocab, reverse bool) (string, error) {
	if v == "" {
		return v, nil
	}
	inv := c.inverse()
	if _, ok := inv[v]; vocab && ok {
		if t := p.selectFor(c, v, value, reverse); t != "" {
			return t, nil
		}
	}
	if vocab && c.hasVocab {
		if suffix, ok := strings.CutPrefix(v, c.vocab); ok && suffix != "" {
			if _, defined := c.terms[suffix]; !defined {
				return suffix, nil
			}
		}
	}
	compact := ""
	for term, d := range c.terms {
		if d.iri == "" || d.iri == v || !strings.HasPrefix(v, d.iri) || !d.prefix {
			continue
		}
		cand := term + ":" + v[len(d.iri):]
		cd, defined := c.terms[cand]
		if (compact == "" || len(cand) < len(compact) || len(cand) == len(compact) && cand < compact) &&
			(!defined || cd.iri == v && value == nil) {
			compact = cand
		}
	}
	if compact != "" {
		return compact, nil
	}
	if i := strings.IndexByte(v, ':'); i > 0 && !strings.HasPrefix(v[i+1:], "//") {
		if d, ok := c.terms[v[:i]]; ok && d.prefix {
			return "", newError("IRI confused with prefix", "%s", v)
		}
	}
	if !vocab && c.base != "" && !isKeyword(v) {
		return relativeIRI(c.base, v), nil
	}
	return v, nil
}

// relativeIRI writes abs as a reference relative to base when they share scheme and authority: the inverse of
// resolution, with "../" segments where needed.
func relativeIRI(base, abs string) string {
	bs, as := splitIRI(base), splitIRI(abs)
	if bs.scheme == "" || bs.scheme != as.scheme || bs.authority != as.authority {
		return abs
	}
	var rel string
	switch {
	case as.path == bs.path && as.query == bs.query:
		if as.fragment == "" {
			rel = as.path[strings.LastIndexByte(as.path, '/')+1:]
			if rel == "" || keywordLike(rel) || strings.Contains(rel, ":") {
				rel = "./" + rel
			}
		}
	case as.path == bs.path:
		rel = as.query
	default:
		bdirs := strings.Split(bs.path, "/")
		bdirs = bdirs[:len(bdirs)-1]
		asegs := strings.Split(as.path, "/")
		n := 0
		for n < len(bdirs) && n < len(asegs)-1 && bdirs[n] == asegs[n] {
			n++
		}
		rel = strings.Repeat("../", len(bdirs)-n) + strings.Join(asegs[n:], "/")
		if rel == "" {
			rel = "./"
		}
		if i := strings.IndexAny(rel, ":/"); i >= 0 && rel[i] == ':' || keywordLike(strings.SplitN(rel, "/", 2)[0]) {
			rel = "./" + rel
		}
		rel += as.query
	}
	rel += as.fragment
	if rel == "" && abs != base {
		return abs
	}
	return rel
}

type iriParts struct{ scheme, authority, path, query, fragment string }

// splitIRI splits an absolute IRI; query and fragment keep their '?' and '#'.
func splitIRI(s string) iriParts {
	var p iriParts
	if i := strings.IndexByte(s, '#'); i >= 0 {
		s, p.fragment = s[:i], s[i:]
	}
	if i := strings.IndexByte(s, '?'); i >= 0 {
		s, p.query = s[:i], s[i:]
	}
	if !iri.IsAbsolute(s) {
		return p
	}
	i := strings.IndexByte(s, ':')
	p.scheme, s = s[:i], s[i+1:]
	if rest, ok := strings.CutPrefix(s, "//"); ok {
		j := strings.IndexByte(rest, '/')
		if j < 0 {
			j = len(rest)
		}
		p.authority, s = rest[:j], rest[j:]
	}
	p.path = s
	return p
}

// selectFor is steps 4.1–4.20 of IRI Compaction: the containers and preferred values for a value, then Term
// Selection.
func (p *processor) selectFor(c *activeContext, v string, value any, reverse bool) string {
	defLang := "@none"
	if c.lang != "" {
		defLang = strings.ToLower(c.lang)
	}
	if c.dir != "" {
		defLang = strings.ToLower(c.lang) + "_" + c.dir
	}
	var containers []string
	typeLang, typeLangValue := "@language", "@null"
	vm, _ := value.(map[string]any)
	_, hasIndex := vm["@index"]
	if hasIndex && !isGraphObject(vm) {
		containers = append(containers, "@index", "@index@set")
	}
	switch {
	case reverse:
		typeLang, typeLangValue = "@type", "@reverse"
		containers = append(containers, "@set")
	case isListObject(vm):
		if !hasIndex {
			containers = append(containers, "@list")
		}
		list := asArray(vm["@list"])
		commonType, commonLang := "", ""
		if len(list) == 0 {
			commonLang = defLang
		}
		for _, item := range list {
			itemLang, itemType := "@none", "@none"
			im, _ := item.(map[string]any)
			if isValueObject(im) {
				switch {
				case im["@direction"] != nil:
					l, _ := im["@language"].(string)
					itemLang = strings.ToLower(l) + "_" + im["@direction"].(string)
				case im["@language"] != nil:
					itemLang = strings.ToLower(im["@language"].(string))
				case im["@type"] != nil:
					itemType, _ = im["@type"].(string)
				default:
					itemLang = "@null"
				}
			} else {
				itemType = "@id"
			}
			if commonLang == "" {
				commonLang = itemLang
			} else if itemLang != commonLang && isValueObject(im) {
				commonLang = "@none"
			}
			if commonType == "" {
				commonType = itemType
			} else if itemType != commonType {
				commonType = "@none"
			}
			if commonLang == "@none" && commonType == "@none" {
				break
			}
		}
		if commonLang == "" {
			commonLang = "@none"
		}
		if commonType == "" {
			commonType = "@none"
		}
		if commonType != "@none" {
			typeLang, typeLangValue = "@type", commonType
		} else {
			typeLangValue = commonLang
		}
	case isGraphObject(vm):
		_, hasID := vm["@id"]
		if hasIndex {
			containers = append(containers, "@graph@index", "@graph@index@set")
		}
		if hasID {
			containers = append(containers, "@graph@id", "@graph@id@set")
		}
		containers = append(containers, "@graph", "@graph@set", "@set")
		if !hasIndex {
			containers = append(containers, "@graph@index", "@graph@index@set")
		}
		if !hasID {
			containers = append(containers, "@graph@id", "@graph@id@set")
		}
		containers = append(containers, "@index", "@index@set")
		typeLang, typeLangValue = "@type", "@id"
	default:
		if isValueObject(vm) {
			switch {
			case vm["@direction"] != nil && !hasIndex:
				l, _ := vm["@language"].(string)
				typeLangValue = strings.ToLower(l) + "_" + vm["@direction"].(string)
				containers = append(containers, "@language", "@language@set")
			case vm["@language"] != nil && !hasIndex:
				typeLangValue = strings.ToLower(vm["@language"].(string))
				containers = append(containers, "@language", "@language@set")
			case vm["@type"] != nil:
				typeLang = "@type"
				typeLangValue, _ = vm["@type"].(string)
			}
		} else {
			typeLang, typeLangValue = "@type", "@id"
			containers = append(containers, "@id", "@id@set", "@type", "@set@type")
		}
		containers = append(containers, "@set")
	}
	containers = append(containers, "@none")
	if !p.mode10 && !hasIndex {
		containers = append(containers, "@index", "@index@set")
	}
	if !p.mode10 && isValueObject(vm) && len(vm) == 1 {
		containers = append(containers, "@language", "@language@set")
	}
	var preferred []string
	if typeLangValue == "@reverse" {
		preferred = append(preferred, "@reverse")
	}
	if id, ok := vm["@id"].(string); ok && (typeLangValue == "@id" || typeLangValue == "@reverse") {
		t, err := p.compactIRI(c, id, nil, true, false)
		if d, ok := c.terms[t]; err == nil && ok && d.iri == id {
			preferred = append(preferred, "@vocab", "@id", "@none")
		} else {
			preferred = append(preferred, "@id", "@vocab", "@none")
		}
	} else {
		preferred = append(preferred, typeLangValue, "@none")
		if isListObject(vm) && len(asArray(vm["@list"])) == 0 {
			typeLang = "@any"
		}
	}
	preferred = append(preferred, "@any")
	for _, pv := range preferred {
		if i := strings.IndexByte(pv, '_'); i >= 0 {
			preferred = append(preferred, pv[i:])
		}
	}
	return c.selectTerm(v, containers, typeLang, preferred)
}

// compactValue is Value Compaction (§6.5).
func (p *processor) compactValue(c *activeContext, prop string, value map[string]any) (any, error) {
	d := c.terms[prop]
	lang, dir := c.lang, c.dir
	var typ string
	var container uint8
	if d != nil {
		if d.lang != nil {
			lang = *d.lang
		}
		if d.dir != nil {
			dir = *d.dir
		}
		typ, container = d.typ, d.container
	}
	_, hasIndex := value["@index"]
	indexOK := !hasIndex || container&cIndex != 0
	id, hasID := value["@id"].(string)
	vt, hasType := value["@type"].(string)
	v, isValue := value["@value"]
	var result any = value
	switch {
	case hasID && (len(value) == 1 || len(value) == 2 && hasIndex):
		switch typ {
		case "@id":
			return p.compactIRI(c, id, nil, false, false)
		case "@vocab":
			return p.compactIRI(c, id, nil, true, false)
		}
	case !isValue:
	case hasType && vt == typ:
		result = v
	case typ == "@none" || hasType && vt != typ:
		if hasType {
			ct, err := p.compactIRI(c, vt, nil, true, false)
			if err != nil {
				return nil, err
			}
			m := make(map[string]any, len(value))
			for k, x := range value {
				m[k] = x
			}
			m["@type"] = ct
			result = m
		}
	default:
		if _, isStr := v.(string); !isStr {
			if indexOK {
				result = v
			}
			break
		}
		vl, _ := value["@language"].(string)
		vd, _ := value["@direction"].(string)
		if strings.EqualFold(vl, lang) && vd == dir && indexOK {
			result = v
		}
	}
	if m, ok := result.(map[string]any); ok {
		out := make(map[string]any, len(m))
		for k, x := range m {
			out[p.alias(c, k)] = x
		}
		result = out
	}
	return result, nil
}

func addValue(obj map[string]any, key string, v any, asArr bool) {
	cur, exists := obj[key]
	if asArr {
		if !exists {
			obj[key] = []any{}
			cur, exists = obj[key], true
		} else if _, isArr := cur.([]any); !isArr {
			obj[key] = []any{cur}
			cur = obj[key]
		}
	}
	if va, isArr := v.([]any); isArr {
		for _, x := range va {
			addValue(obj, key, x, asArr)
		}
		if len(va) == 0 && asArr && !exists {
			obj[key] = []any{}
		}
		return
	}
	if !exists {
		obj[key] = v
		return
	}
	if a, isArr := cur.([]any); isArr {
		obj[key] = append(a, v)
	} else {
		obj[key] = []any{cur, v}
	}
}

func (p *processor) alias(c *activeContext, kw string) string {
	a, err := p.compactIRI(c, kw, nil, true, false)
	if err != nil || a == "" {
		return kw
	}
	return a
}

// compact is the Compaction Algorithm (§6.1.2).
func (p *processor) compact(active *activeContext, prop string, element any, compactArrays bool) (any, error) {
	typeScoped := active
	switch el := element.(type) {
	case []any:
		result := []any{}
		for _, item := range el {
			x, err := p.compact(active, prop, item, compactArrays)
			if err != nil {
				return nil, err
			}
			if x != nil {
				result = append(result, x)
			}
		}
		d := active.terms[prop]
		if len(result) != 1 || !compactArrays || prop == "@graph" || prop == "@set" || d != nil && d.container&(cList|cSet) != 0 {
			return result, nil
		}
		return result[0], nil
	case map[string]any:
		return p.compactObject(active, typeScoped, prop, el, compactArrays)
	}
	return element, nil
}

func (p *processor) compactObject(active, typeScoped *activeContext, prop string, el map[string]any, compactArrays bool) (any, error) {
	// The property's scoped context is the one it has where it is used, before a type-scoped context is undone.
	propDef := active.terms[prop]
	if active.previous != nil && !isValueObject(el) {
		if _, hasID := el["@id"]; !(hasID && len(el) == 1) {
			active = active.previous
		}
	}
	if d := propDef; d != nil && d.hasContext {
		var err error
		if active, err = p.scoped(active, d, true, true); err != nil {
			return nil, err
		}
	}
	_, hasValue := el["@value"]
	_, hasID := el["@id"]
	if hasValue || hasID {
		r, err := p.compactValue(active, prop, el)
		if err != nil {
			return nil, err
		}
		d := active.terms[prop]
		if _, isMap := r.(map[string]any); !isMap || d != nil && d.typ == "@json" {
			return r, nil
		}
	}
	if list, ok := el["@list"]; ok {
		if d := active.terms[prop]; d != nil && d.container&cList != 0 {
			return p.compact(active, prop, list, compactArrays)
		}
	}
	insideReverse := prop == "@reverse"
	result := map[string]any{}
	if types, ok := el["@type"]; ok {
		var compacted []string
		for _, t := range asArray(types) {
			s, _ := t.(string)
			ct, err := p.compactIRI(typeScoped, s, nil, true, false)
			if err != nil {
				return nil, err
			}
			compacted = append(compacted, ct)
		}
		slices.Sort(compacted)
		for _, t := range compacted {
			if d, ok := typeScoped.terms[t]; ok && d.hasContext {
				var err error
				if active, err = p.scoped(active, d, false, false); err != nil {
					return nil, err
				}
			}
		}
	}
	for _, ep := range sortedKeys(el) {
		ev := el[ep]
		switch ep {
		case "@id":
			if s, ok := ev.(string); ok {
				cv, err := p.compactIRI(active, s, nil, false, false)
				if err != nil {
					return nil, err
				}
				result[p.alias(active, "@id")] = cv
			}
			continue
		case "@type":
			var cv any
			switch t := ev.(type) {
			case string:
				s, err := p.compactIRI(typeScoped, t, nil, true, false)
				if err != nil {
					return nil, err
				}
				cv = s
			case []any:
				out := make([]any, 0, len(t))
				for _, x := range t {
					s, _ := x.(string)
					cs, err := p.compactIRI(typeScoped, s, nil, true, false)
					if err != nil {
						return nil, err
					}
					out = append(out, cs)
				}
				cv = out
			}
			alias := p.alias(active, "@type")
			d := active.terms[alias]
			asArr := !p.mode10 && d != nil && d.container&cSet != 0 || !compactArrays
			addValue(result, alias, cv, asArr)
			continue
		case "@reverse":
			x, err := p.compact(active, "@reverse", ev, compactArrays)
			if err != nil {
				return nil, err
			}
			cm, _ := x.(map[string]any)
			for _, k := range sortedKeys(cm) {
				if d := active.terms[k]; d != nil && d.reverse {
					asArr := d.container&cSet != 0 || !compactArrays
					addValue(result, k, cm[k], asArr)
					delete(cm, k)
				}
			}
			if len(cm) > 0 {
				result[p.alias(active, "@reverse")] = cm
			}
			continue
		case "@preserve":
			continue
		case "@index":
			if d := active.terms[prop]; d != nil && d.container&cIndex != 0 {
				continue
			}
			result[p.alias(active, ep)] = ev
			continue
		case "@direction", "@language", "@value":
			result[p.alias(active, ep)] = ev
			continue
		}
		items := asArray(ev)
		if len(items) == 0 {
			iap, err := p.compactIRI(active, ep, ev, true, insideReverse)
			if err != nil {
				return nil, err
			}
			nr, err := p.nestResult(active, result, iap)
			if err != nil {
				return nil, err
			}
			addValue(nr, iap, []any{}, true)
		}
		for _, item := range items {
			iap, err := p.compactIRI(active, ep, item, true, insideReverse)
			if err != nil {
				return nil, err
			}
			nr, err := p.nestResult(active, result, iap)
			if err != nil {
				return nil, err
			}
			var container uint8
			d := active.terms[iap]
			if d != nil {
				container = d.container
			}
			asArr := container&cSet != 0 || iap == "@graph" || iap == "@list" || !compactArrays
			im, _ := item.(map[string]any)
			inner := item
			switch {
			case isListObject(im):
				inner = im["@list"]
			case isGraphObject(im):
				inner = im["@graph"]
			}
			ci, err := p.compact(active, iap, inner, compactArrays)
			if err != nil {
				return nil, err
			}
			switch {
			case isListObject(im):
				if p.mode10 {
					for _, x := range asArray(im["@list"]) {
						if isListObject(x) {
							return nil, newError("compaction to list of lists", "%s", ep)
						}
					}
				}
				ca := asArray(ci)
				if _, isArr := ci.([]any); !isArr {
					ca = []any{ci}
				}
				if container&cList == 0 {
					lm := map[string]any{p.alias(active, "@list"): ca}
					if idx, ok := im["@index"]; ok {
						lm[p.alias(active, "@index")] = idx
					}
					addValue(nr, iap, lm, asArr)
				} else {
					nr[iap] = ca
				}
			case isGraphObject(im):
				_, gHasID := im["@id"]
				_, gHasIndex := im["@index"]
				switch {
				case container&cGraph != 0 && container&cID != 0:
					mo := mapObject(nr, iap)
					key := "@none"
					var mk string
					if id, ok := im["@id"].(string); ok {
						key = id
						mk, err = p.compactIRI(active, key, nil, false, false)
					} else {
						mk, err = p.compactIRI(active, key, nil, true, false)
					}
					if err != nil {
						return nil, err
					}
					addValue(mo, mk, ci, asArr)
				case container&cGraph != 0 && container&cIndex != 0 && !gHasID:
					mo := mapObject(nr, iap)
					mk, _ := im["@index"].(string)
					if !gHasIndex {
						mk = p.alias(active, "@none")
					}
					addValue(mo, mk, ci, asArr)
				case container&cGraph != 0 && !gHasID:
					if a, ok := ci.([]any); ok && len(a) > 1 {
						ci = map[string]any{p.alias(active, "@included"): a}
					}
					addValue(nr, iap, ci, asArr)
				default:
					gm := map[string]any{p.alias(active, "@graph"): ci}
					if id, ok := im["@id"].(string); ok {
						cid, err := p.compactIRI(active, id, nil, false, false)
						if err != nil {
							return nil, err
						}
						gm[p.alias(active, "@id")] = cid
					}
					if gHasIndex {
						gm[p.alias(active, "@index")] = im["@index"]
					}
					addValue(nr, iap, gm, asArr)
				}
			case container&(cLanguage|cIndex|cID|cType) != 0 && container&cGraph == 0:
				mo := mapObject(nr, iap)
				var ck string
				switch {
				case container&cLanguage != 0:
					ck = "@language"
				case container&cIndex != 0:
					ck = "@index"
				case container&cID != 0:
					ck = "@id"
				default:
					ck = "@type"
				}
				ckAlias := p.alias(active, ck)
				indexKey := "@index"
				if d != nil && d.index != "" {
					indexKey = d.index
				}
				mk := ""
				cim, _ := ci.(map[string]any)
				switch {
				case container&cLanguage != 0 && isValueObject(im):
					if cim != nil {
						ci = im["@value"]
					}
					mk, _ = im["@language"].(string)
				case container&cIndex != 0 && indexKey == "@index":
					mk, _ = im["@index"].(string)
				case container&cIndex != 0:
					ik := p.alias(active, indexKey)
					if cim != nil {
						vals := asArray(cim[ik])
						if len(vals) > 0 {
							if s, ok := vals[0].(string); ok {
								mk = s
								rest := vals[1:]
								delete(cim, ik)
								if len(rest) == 1 {
									cim[ik] = rest[0]
								} else if len(rest) > 1 {
									cim[ik] = rest
								}
							}
						}
					}
				case container&cID != 0:
					if cim != nil {
						mk, _ = cim[ckAlias].(string)
						delete(cim, ckAlias)
					}
				default:
					if cim != nil {
						vals := asArray(cim[ckAlias])
						if len(vals) > 0 {
							mk, _ = vals[0].(string)
							rest := vals[1:]
							delete(cim, ckAlias)
							if len(rest) == 1 {
								cim[ckAlias] = rest[0]
							} else if len(rest) > 1 {
								cim[ckAlias] = rest
							}
						}
						if len(cim) == 1 {
							for k := range cim {
								if x, _ := p.expandKey(active, k); x == "@id" {
									ci, err = p.compact(active, iap, map[string]any{"@id": im["@id"]}, compactArrays)
									if err != nil {
										return nil, err
									}
								}
							}
						}
					}
				}
				if mk == "" {
					mk = p.alias(active, "@none")
				}
				addValue(mo, mk, ci, asArr)
			default:
				addValue(nr, iap, ci, asArr)
			}
		}
	}
	return result, nil
}

func mapObject(nr map[string]any, key string) map[string]any {
	mo, ok := nr[key].(map[string]any)
	if !ok {
		mo = map[string]any{}
		nr[key] = mo
	}
	return mo
}

// nestResult returns the object a property's values go in: result, or the nest object its term names.
func (p *processor) nestResult(active *activeContext, result map[string]any, term string) (map[string]any, error) {
	d := active.terms[term]
	if d == nil || d.nest == "" {
		return result, nil
	}
	nt := d.nest
	if nt != "@nest" {
		x, err := p.expandKey(active, nt)
		if err != nil {
			return nil, err
		}
		if x != "@nest" {
			return nil, newError("invalid @nest value", "%s", nt)
		}
	}
	return mapObject(result, nt), nil
}
