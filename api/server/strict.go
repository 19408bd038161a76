package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"strings"

	"github.com/ldhub/ldhub/httpx/apierr"
)

// A client that sends a field the server will not apply must be told so: a misspelt or guessed field name that is
// silently dropped leaves a repository private or a label unset with a 200 answer. So every JSON body and every
// JSON multipart part is checked key by key against the fields its type reads. Where a field is known under
// another name (the reply's name for it, or another API version's), that alias is honoured and documented in
// docs/api.md instead of refused.

// bodyRules are what a request type says beyond its json tags.
type bodyRules struct {
	// aliases maps another name of a field to the field's own JSON name.
	aliases map[string]string
	// readOnly fields belong to the schema (a client may send back what it read) but are set by the server: null is
	// accepted, a value is refused.
	readOnly []string
}

// ruled is implemented by request types that have aliases or read-only fields.
type ruled interface{ jsonRules() bodyRules }

// visibleAliases are the names the replies give a repository's visibility (Repository.publiclyVisible,
// RepositoryView.publicVisibility, v4's public).
var visibleAliases = map[string]string{"publiclyVisible": "visible", "publicVisibility": "visible", "public": "visible"}

var serverSet = []string{"id", "createdBy", "createdOn", "modifiedBy", "modifiedOn"}

func (*Group) jsonRules() bodyRules { return bodyRules{readOnly: serverSet} }
func (*RepositoryDataInput) jsonRules() bodyRules {
	return bodyRules{aliases: visibleAliases, readOnly: append(slices.Clip(serverSet), "publicationCount")}
}
func (*RepositoryPartial) jsonRules() bodyRules { return bodyRules{aliases: visibleAliases} }

// jsonFields lists the JSON names of a struct type's fields.
func jsonFields(t reflect.Type) []string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	var out []string
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" || !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out = append(out, name)
	}
	return out
}

// decodeStrict decodes one JSON object into v (a pointer to a struct), refusing with 400 any key that v does not
// read, naming it and the accepted fields. where names the body or part for the message.
func decodeStrict(data []byte, v any, where string) error {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(data, &obj); err != nil {
		return &apierr.Error{Status: http.StatusBadRequest, Message: where + " is not a valid JSON object: " + err.Error(), Err: err}
	}
	if obj == nil {
		return badRequest(where + " must be a JSON object, not null")
	}
	var rules bodyRules
	if r, ok := v.(ruled); ok {
		rules = r.jsonRules()
	}
	fields := jsonFields(reflect.TypeOf(v))
	// Sorted for a stable message; the loop renames aliases in place.
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		raw := obj[k]
		if canon, ok := rules.aliases[k]; ok {
			if _, both := obj[canon]; both {
				return fieldError(where, k, "%s and its alias %s are both given; send one", canon, k)
			}
			delete(obj, k)
			obj[canon] = raw
			continue
		}
		if slices.Contains(rules.readOnly, k) {
			if !bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
				return fieldError(where, k, "field %s is set by the server; leave it out (or null)", k)
			}
			delete(obj, k)
			continue
		}
		if !slices.Contains(fields, k) {
			accepted := slices.DeleteFunc(slices.Clone(fields), func(f string) bool { return slices.Contains(rules.readOnly, f) })
			return fieldError(where, k, "unknown field %q; accepted fields: %s", k, strings.Join(accepted, ", "))
		}
	}
	clean, err := json.Marshal(obj)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(clean, v); err != nil {
		msg := where + " has a field of the wrong type: " + err.Error()
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			return fieldError(where, te.Field, "field %s must be a JSON %s, not %s", te.Field, jsonKind(te.Type), te.Value)
		}
		return &apierr.Error{Status: http.StatusBadRequest, Message: msg, Err: err}
	}
	return nil
}

// fieldError is a 400 whose details name the offending field, so that clients can point at it.
func fieldError(where, field, format string, args ...any) error {
	return &apierr.Error{Status: http.StatusBadRequest, Message: where + ": " + fmt.Sprintf(format, args...),
		Details: map[string]string{"field": field}}
}

// jsonKind names a Go type as the JSON value it decodes from.
func jsonKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Slice, reflect.Array:
		return "array"
	case reflect.Struct, reflect.Map:
		return "object"
	default:
		return "number"
	}
}
